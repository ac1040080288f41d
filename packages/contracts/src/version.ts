/** Bulwark's version: in the OpenAPI document, CEF lines and what a license vendor is shown. */
export const BULWARK_VERSION = '0.1.0';
