import { type Api, type ApiResponse, expectStatus } from './http';

/** What {@link projectWithSource} made: the project's code, its layer, its source and one tool a type. */
export interface ProjectSetup {
  code: string;
  layerId: string;
  sourceId: string;
  tools: string[];
}

/** The body of a 200 answer; otherwise fails, showing the body. */
const ok = (res: ApiResponse) => expectStatus(res, 200);

/**
 * A project `code` (with `tags`) with a layer, an anonymous Git source at `sourceUrl` and a tool of
 * each type, made through the API.
 */
export async function projectWithSource(
  admin: Api,
  o: { code: string; sourceUrl: string; toolTypes: number[]; tags?: string[] },
): Promise<ProjectSetup> {
  const { code } = o;
  ok(await admin.post('/api/v1/project', { code, name: `Project ${code}`, description: '', tags: o.tags ?? [] }));
  const layer = ok(
    await admin.post('/api/v1/layer', {
      name: 'code',
      description: 'source code',
      project_code: code,
      layer_type_id: 1,
      is_template: false,
    }),
  );
  const source = ok(
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
      ok(
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
  return ok(
    await admin.post('/api/v1/check', {
      layer_id: layerId,
      security_tool_id: env.tools[0],
      scan_source_id: env.sourceId,
      source_auth: { branch_name: 'main' },
      run_scan_task: { type: 'manual' },
    }),
  ).id as string;
}
