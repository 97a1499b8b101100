/** The HTTP methods a platform's API is called with: an http concern, named here so the request
 * machinery (api-client, retry) does not depend on the platform declarations that use it. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
