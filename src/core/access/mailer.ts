import type { Transporter } from 'nodemailer'
import type { User } from './users.ts'

/** What a one-time link is for (core/access/password-links.ts issues them). */
export type LinkPurpose = 'invitation' | 'reset'

/**
 * Sends invitation and reset links by mail, through nodemailer's SMTP transport, when
 * SWITCHYARD_SMTP_URL is set (docs/configuration.md). A mail that cannot be sent is not an error for
 * the admin: the link is still answered to them, to hand over, and `emailed` says it was not sent.
 */
export class Mailer {
  // nodemailer is loaded on the first mail: a service that never invites anyone does not hold it.
  private transport: Promise<Transporter> | undefined

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
    private readonly logError: (message: string) => void = (m) => console.error(m),
  ) {}

  private transporter(): Promise<Transporter> {
    this.transport ??= import('nodemailer').then((m) => m.createTransport(this.smtpUrl))
    return this.transport
  }

  async sendLink(user: User, purpose: LinkPurpose, url: string, expiresAt: Date): Promise<boolean> {
    const subject =
      purpose === 'invitation' ? 'You are invited to Switchyard' : 'Choose a new Switchyard password'
    const lead =
      purpose === 'invitation'
        ? `An admin added you (${user.email}) to Switchyard. Open this link to choose your password:`
        : `An admin issued a link to choose a new password for ${user.email} on Switchyard:`
    const text = [
      `Hello ${user.name},`,
      '',
      lead,
      url,
      '',
      `The link works once, until ${expiresAt.toUTCString()}.`,
      'If you did not expect this, ignore this mail.',
    ].join('\n')
    try {
      await (await this.transporter()).sendMail({ from: this.from, to: user.email, subject, text })
      return true
    } catch (err) {
      // The mail server's words only: never the link, which would let a log reader set the password.
      this.logError(
        `mail: could not send a ${purpose} link: ${err instanceof Error ? err.message : String(err)}`,
      )
      return false
    }
  }

  close(): void {
    void this.transport?.then((t) => t.close())
  }
}
