import type { Api, Json } from './http';

/** What {@link projectWithSource} made: the project's code, its layer, its source and one tool a type. */
export interface ProjectSetup {
  code: string;
  layerId: string;
  sourceId: string;
  tools: string[];
}

function must(what: string, res: { status: number; body: Json }): Json {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A project `code` (with `tags`) with a layer, an anonymous Git source at `sourceUrl` and a tool of
 * each type, made through the API.
 */
export async function projectWithSource(
  admin: Api,
  o: { code: string; sourceUrl: string; toolTypes: number[]; tags?: string[] },
): Promise<ProjectSetup> {
  const { code } = o;
  must(
    'project',
    await admin.post('/api/v1/project', { code, name: `Project ${code}`, description: '', tags: o.tags ?? [] }),
  );
  const layer = must(
    'layer',
    await admin.post('/api/v1/layer', {
      name: 'code',
      description: 'source code',
      project_code: code,
      layer_type_id: 1,
      is_template: false,
    }),
  );
  const source = must(
    'source',
    await admin.post('/api/v1/source', {
      name: `repo ${code}`,
      description: '',
      source_type_id: 1,
      settings: { url: o.sourceUrl, branch_name: 'main', auth_method: 'Anonymous' },
    }),
  );
  const tools: string[] = [];
  for (const typeId of o.toolTypes)
    tools.push(
      must(
        'tool',
        await admin.post('/api/v1/tool', {
          description: `tool ${typeId}`,
          type_id: typeId,
          settings: { scan_result_lang: 'EN' },
        }),
      ).id as string,
    );
  return { code, layerId: layer.id as string, sourceId: source.id as string, tools };
}

/** A check of the setup's first tool and source on a layer (its own by default), run by hand: uploads give its scans. */
export async function manualCheck(admin: Api, env: ProjectSetup, layerId = env.layerId): Promise<string> {
  return must(
    'check',
    await admin.post('/api/v1/check', {
      layer_id: layerId,
      security_tool_id: env.tools[0],
      scan_source_id: env.sourceId,
      source_auth: { branch_name: 'main' },
      run_scan_task: { type: 'manual' },
    }),
  ).id as string;
}
