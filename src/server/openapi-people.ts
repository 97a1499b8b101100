// The people part of the OpenAPI document: signing in, sessions, passwords and the one-time links
// that set them (docs/security.md, "People"); the shapes follow src/core/access/.

import { body, errors, idParam, json, ref, time } from './openapi-parts.ts'

const token = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: "the token after `#token=` in the link's address",
}

export const peopleSchemas = {
  PasswordLink: {
    type: 'object',
    required: ['purpose', 'url', 'expires_at', 'emailed'],
    properties: {
      purpose: { enum: ['invitation', 'reset'] },
      url: { type: 'string', description: 'the one-time link to hand over; shown once' },
      expires_at: time,
      emailed: { type: 'boolean', description: 'also sent by mail (only when SMTP is configured)' },
    },
  },
  Session: {
    type: 'object',
    required: ['id', 'method', 'user_agent', 'created_at', 'last_seen_at', 'expires_at', 'current'],
    properties: {
      id: { type: 'string' },
      method: { enum: ['api_key', 'password', 'link', 'sso'] },
      user_agent: { type: 'string' },
      created_at: time,
      last_seen_at: time,
      expires_at: time,
      current: { type: 'boolean', description: 'the session this request came with' },
    },
  },
}

export const peoplePaths = {
  '/v1/session': {
    post: {
      summary:
        'Sign a browser in, with email and password or with an API key. From this site only (Origin); repeated failures answer 429 with Retry-After',
      security: [],
      requestBody: body({
        oneOf: [
          {
            type: 'object',
            required: ['email', 'password'],
            additionalProperties: false,
            properties: { email: { type: 'string' }, password: { type: 'string' } },
          },
          {
            type: 'object',
            required: ['api_key'],
            additionalProperties: false,
            properties: { api_key: { type: 'string' } },
          },
        ],
      }),
      responses: { 204: { description: 'Signed in: a new session cookie' }, ...errors(400, 401, 403, 429) },
    },
    delete: { summary: 'Sign out', security: [], responses: { 204: { description: 'Signed out' } } },
  },
  '/v1/me': {
    get: {
      summary: 'The caller',
      responses: {
        200: json({
          type: 'object',
          required: ['id', 'email', 'name', 'plan', 'role', 'has_password'],
          properties: {
            id: { type: 'string' },
            email: { type: 'string' },
            name: { type: ['string', 'null'] },
            plan: { enum: ['free', 'pro', 'enterprise'] },
            role: { enum: ['admin', 'member'], description: 'admin: may manage users' },
            has_password: { type: 'boolean' },
          },
        }),
        ...errors(401),
      },
    },
  },
  '/v1/me/password': {
    put: {
      summary:
        "Set or change the caller's password (the current one is needed once one is set); the caller's other sessions end",
      requestBody: body({
        type: 'object',
        required: ['new_password'],
        additionalProperties: false,
        properties: { current_password: { type: 'string' }, new_password: { type: 'string' } },
      }),
      responses: { 204: { description: 'Changed' }, ...errors(400, 401) },
    },
  },
  '/v1/me/sessions': {
    get: {
      summary: "The caller's browser sessions",
      responses: {
        200: json({
          type: 'object',
          required: ['sessions'],
          properties: { sessions: { type: 'array', items: ref('Session') } },
        }),
        ...errors(401),
      },
    },
    delete: {
      summary: "Sign out everywhere: end every one of the caller's sessions, this one too",
      responses: {
        200: json({ type: 'object', required: ['ended'], properties: { ended: { type: 'integer' } } }),
        ...errors(401),
      },
    },
  },
  '/v1/me/sessions/{id}': {
    delete: {
      summary: "End one of the caller's sessions",
      parameters: [idParam],
      responses: { 204: { description: 'Ended' }, ...errors(401, 404) },
    },
  },
  '/v1/users/{id}/password-link': {
    post: {
      summary:
        "A new one-time link that sets the user's password: an invitation while they have none, else a reset. Their earlier unused links stop working (admins only)",
      parameters: [idParam],
      responses: { 201: json(ref('PasswordLink'), 'Issued'), ...errors(401, 403, 404) },
    },
  },
  '/v1/password-links/inspect': {
    post: {
      summary: 'Whose an invitation or reset link is, before a password is chosen (410 once used or expired)',
      security: [],
      requestBody: body({
        type: 'object',
        required: ['token'],
        additionalProperties: false,
        properties: { token },
      }),
      responses: {
        200: json({
          type: 'object',
          required: ['purpose', 'email', 'name', 'expires_at'],
          properties: {
            purpose: { enum: ['invitation', 'reset'] },
            email: { type: 'string' },
            name: { type: 'string' },
            expires_at: time,
          },
        }),
        ...errors(400, 403, 410),
      },
    },
  },
  '/v1/password-links/accept': {
    post: {
      summary:
        "Use an invitation or reset link: set the password, end the person's sessions and sign this browser in",
      security: [],
      requestBody: body({
        type: 'object',
        required: ['token', 'password'],
        additionalProperties: false,
        properties: { token, password: { type: 'string' } },
      }),
      responses: { 204: { description: 'Password set, signed in' }, ...errors(400, 403, 410) },
    },
  },
  '/v1/sso': {
    get: {
      summary: 'Whether single sign-on is offered, and what the sign-in button calls the identity provider',
      security: [],
      responses: {
        200: json({
          type: 'object',
          required: ['enabled', 'name'],
          properties: { enabled: { type: 'boolean' }, name: { type: ['string', 'null'] } },
        }),
      },
    },
  },
  '/v1/sso/start': {
    get: {
      summary:
        'Start single sign-on: 303 to the identity provider (authorization code with PKCE), binding the flow to this browser',
      security: [],
      parameters: [
        {
          name: 'next',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: 'a path of this site to land on once signed in; anything else lands on /integrations',
        },
      ],
      responses: { 303: { description: 'To the identity provider' }, ...errors(409, 502) },
    },
  },
  '/v1/sso/callback': {
    get: {
      summary:
        'Where the identity provider sends the browser back: 303 to the `next` path, signed in, or to /login?sso_error=… with the reason',
      security: [],
      parameters: [
        { name: 'code', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'state', in: 'query', required: false, schema: { type: 'string' } },
      ],
      responses: { 303: { description: 'Signed in, or to the sign-in page with the reason' } },
    },
  },
}
