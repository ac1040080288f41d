import type { catalogV1, identityV1, issuesV1, scanningV1 } from '@bulwark/proto';
import type { ServiceClient } from './grpc';

// The promise clients of the services' gRPC APIs, named once for every service that calls them.
export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;
export type CatalogClient = ServiceClient<typeof catalogV1.CatalogServiceService>;
export type ScanningClient = ServiceClient<typeof scanningV1.ScanningServiceService>;
export type IssuesClient = ServiceClient<typeof issuesV1.IssuesServiceService>;
