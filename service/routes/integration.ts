import type { IntegrationInfo } from '../../contract/types.js';
import { HttpError } from '../http/errors.js';
import { checkRate } from '../http/rate-limiter.js';
import { json } from '../http/responses.js';
import { type RequestInfo, type ServiceContext, requireApiKey, requireProject } from './context.js';

/** Its checks limited through rates; the integration comes from the directory. */
type IntegrationContext = ServiceContext<'rates'>;

/**
 * GET /query/v1/projects/{projectId}/integrations/{integrationId}/ (decision 464): one
 * integration described to a holder of its project's API key, so a site's server can check its
 * setup. An unknown project answers 401 like a wrong key (ids cannot be probed, decision 182);
 * the key proves the project, so an integration it does not have is named in a 404.
 */
export async function describeIntegration(
  ctx: IntegrationContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  await requireApiKey(ctx, request, project);
  // The mint's budget, in a window of its own: a setup page checked in a loop never starves visitors' sessions.
  await checkRate(ctx.storage.rates, ctx.clock, ctx.limits.mint, `integration\n${project.id}`);
  const integration = project.integrations.get(integrationId);
  if (!integration)
    // Its own code: an older service answers `not_found` for the whole path (decision 492).
    throw new HttpError(
      404,
      'integration_not_found',
      `Project ${project.id} has no integration ${JSON.stringify(integrationId.slice(0, 80))}: copy its id from the Integrations page of the service console.`,
    );
  return json({
    id: integration.id,
    name: integration.name,
    public: integration.public,
    allowed_origins: [...integration.allowedOrigins],
  } satisfies IntegrationInfo);
}
