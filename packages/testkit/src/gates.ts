import type { Api } from './http';

/**
 * A quality gate that fails when the layer has a high-severity issue, linked to the layer with
 * `action` (`lock` locks it on a failure, `inform` only reports): answers the gate's id.
 */
export async function gateOnHighs(api: Api, layerId: string, name: string, action: 'lock' | 'inform'): Promise<string> {
  const must = <T>(what: string, res: { status: number; body: T }): T => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const gate = must('quality gate', await api.post<{ id: string }>('/api/v1/quality-gate', { name }));
  must(
    'condition',
    await api.post('/api/v1/condition', {
      quality_gate_id: gate.id,
      condition_type: 'severity',
      condition_value: 'high',
      operator: 'not_greater_than',
      value: '0',
    }),
  );
  must(
    'link',
    await api.post('/api/v1/quality-gate/link-layer', {
      layer_id: layerId,
      quality_gates: [{ quality_gate_id: gate.id, action }],
    }),
  );
  return gate.id;
}
