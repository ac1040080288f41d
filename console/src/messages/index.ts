import * as core from './core';
import * as policy from './policy';
import * as projects from './projects';
import * as triage from './triage';
import * as components from './components';
import * as triageList from './triage-list';

/** Each area's messages, a module of its own with every language; i18n.tsx merges them into one dictionary. */
export const MESSAGE_MODULES = { core, policy, triage, triageList, projects, components } as const;
