import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bracketQuery, bulkResult, byId, idsBody, listOf, pageQuery, perm } from '../common';
import { issueSearch } from '../schemas/issues';
import { slaPolicyBody, slaPolicyView } from '../schemas/sla';

// SLA policies: served by the issues service, whose open issues get their due dates.
const service = 'issues';
const slaP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.sla_policies', l, 'project-set');

const WHICH_APPLIES =
  'A project gets the policy naming it in project_codes; else one whose project_tags it carries; else one with neither (every project). ' +
  'When several policies of that kind apply, each severity takes the shortest of their days.';

export const slaRoutes = [
  {
    operationId: 'createSlaPolicy',
    method: 'post',
    path: '/api/v1/sla-policy',
    service,
    tag: 'SLA policies',
    access: slaP('w'),
    summary: 'Create an SLA policy: days to fix open issues by severity, for some projects or every one',
    description: WHICH_APPLIES,
    request: { body: slaPolicyBody },
    response: slaPolicyView,
  },
  {
    operationId: 'listSlaPolicies',
    method: 'get',
    path: '/api/v1/sla-policies',
    service,
    tag: 'SLA policies',
    access: slaP('r'),
    summary: 'SLA policies',
    description: `A caller limited to some projects sees the policies applying to them, with only its own project codes. ${WHICH_APPLIES}`,
    request: {
      query: bracketQuery(z.object({ ...pageQuery, 'search[name]': issueSearch }).strict()),
    },
    response: listOf(slaPolicyView, 'SlaPolicyList'),
  },
  {
    operationId: 'getSlaPolicy',
    method: 'get',
    path: '/api/v1/sla-policy/{id}',
    service,
    tag: 'SLA policies',
    access: slaP('r'),
    summary: 'An SLA policy',
    request: { params: byId },
    response: slaPolicyView,
  },
  {
    operationId: 'updateSlaPolicy',
    method: 'put',
    path: '/api/v1/sla-policy/{id}',
    service,
    tag: 'SLA policies',
    access: slaP('w'),
    summary: 'Update an SLA policy (the due dates of the issues it applies to follow)',
    request: { params: byId, body: slaPolicyBody },
    response: slaPolicyView,
  },
  {
    operationId: 'deleteSlaPolicies',
    method: 'delete',
    path: '/api/v1/sla-policies',
    service,
    tag: 'SLA policies',
    access: slaP('d'),
    summary: 'Delete SLA policies by id',
    request: { body: idsBody },
    response: bulkResult,
  },
] as const satisfies readonly RouteSpec[];
