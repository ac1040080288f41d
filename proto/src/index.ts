// The generated contracts, one namespace per service.
export * as identityV1 from '../gen/bulwark/identity/v1/identity';
export * as catalogV1 from '../gen/bulwark/catalog/v1/catalog';
export * as scanningV1 from '../gen/bulwark/scanning/v1/scanning';
export * as issuesV1 from '../gen/bulwark/issues/v1/issues';
export * as reportingV1 from '../gen/bulwark/reporting/v1/reporting';
export * as notificationsV1 from '../gen/bulwark/notifications/v1/notifications';
