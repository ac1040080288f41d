import { createContext, useContext } from 'react';
import type { IssueStatus, Me } from './types';

export interface SessionState {
  me: Me;
  statuses: IssueStatus[];
  signOut: () => void;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside a signed-in page');
  return ctx;
}

/** A status's name in the reader's language (the API keeps both). */
export const statusName = (statuses: IssueStatus[], id: number, lang: 'en' | 'ru') => {
  const s = statuses.find((x) => x.id === id);
  return s ? (lang === 'ru' ? s.name_ru : s.name_en) : String(id);
};

/** Whether the signed-in user holds a permission key with a letter (the pages hide what the API would refuse). */
export const can = (me: Me, key: string, letter: 'r' | 'w' | 'x' | 'd') =>
  me.permissions[key]?.includes(letter) ?? false;
