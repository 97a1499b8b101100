import { escapeHtml, htmlResponse, type SandboxResponse } from './kit/http.ts'
import { homeLayout } from './kit/home-page.ts'

/**
 * `GET /` on the sandbox port (docs/sandbox.md "Home pages"): where a newcomer who opens the port
 * lands, linking each platform sandbox's home page. The model sandboxes have no pages (they are
 * APIs only), so they are named with their base URL as text.
 */
export function sandboxRootPage(
  platforms: Array<{ title: string; prefix: string }>,
  models: Array<{ title: string; prefix: string; basePath: string }>,
): SandboxResponse {
  const links = platforms
    .map(
      (s) =>
        `<li><a href="${escapeHtml(s.prefix)}">${escapeHtml(s.title)}</a> <code>${escapeHtml(s.prefix)}</code></li>`,
    )
    .join('\n')
  const apis = models
    .map(
      (m) =>
        `<li>${escapeHtml(m.title)} (API only): <code>${escapeHtml(`${m.prefix}${m.basePath}`)}</code></li>`,
    )
    .join('\n')
  return htmlResponse(
    200,
    homeLayout(
      'Sandboxes',
      `<h1>Switchyard sandboxes</h1>
<p>Local stand-ins for the platforms Switchyard talks to. Open one to see its accounts and records and to make a change as another person, so a trigger fires.</p>
<ul id="sandboxes">
${links}
</ul>
${apis ? `<h2>Model sandboxes</h2>\n<ul id="model-sandboxes">\n${apis}\n</ul>` : ''}`,
    ),
  )
}
