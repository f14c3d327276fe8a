import type { AuditEvent, AuditLog } from '../../audit/types.ts';

/**
 * Appends an audit event for a path that has already failed closed (a rejection):
 * an audit outage must not turn a typed rejection into an exception.
 * Paths that are about to execute a tool await `audit.append` directly instead, so
 * that no tool runs without its dispatch record.
 */
export async function auditBestEffort(audit: AuditLog, event: AuditEvent): Promise<void> {
  try {
    await audit.append(event);
  } catch {
    // The caller still returns its typed outcome; the missing record shows as an outage.
  }
}
