import { z } from 'zod';

// Header names as HTTP defines them (RFC 9110 token), so a typo cannot silently match nothing.
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');
/** A secret, or `env:NAME` to read it from the environment; resolved and checked after the shape. */
const secretRef = z.string().min(1, 'must not be empty');
const nonEmpty = z.string().min(1, 'must not be empty');

/**
 * The `--auth` file, before `env:` references are resolved. Strict objects: an unknown
 * key is an error, since a misspelt `pasword` would otherwise leave an approver unable to log in.
 */
export const authFileSchema = z.strictObject({
  agents: z
    .array(
      z.strictObject({
        name: nonEmpty,
        token: secretRef,
        /** Principals the agent may act for: exact names or `*` patterns. Absent: any principal. */
        principals: z.array(nonEmpty).optional(),
      }),
    )
    .min(1, 'at least one agent is required'),
  approvers: z
    .array(
      z.strictObject({
        id: nonEmpty,
        roles: z.array(nonEmpty),
        /** The principals (end users agents act for) this approver also is: never approvers of their own calls. */
        principals: z.array(nonEmpty).optional(),
        password: secretRef.optional(),
        token: secretRef.optional(),
      }),
    )
    .default([]),
  trustedProxy: z
    .strictObject({
      userHeader: headerName,
      rolesHeader: headerName.optional(),
      sharedSecretHeader: headerName.optional(),
      sharedSecret: secretRef.optional(),
    })
    .optional(),
});

export type AuthFileDocument = z.infer<typeof authFileSchema>;
