import { useEffect, useMemo, useState } from 'react'
import { api, type Platform } from './api.ts'

/** The platforms, or null until loaded (and on failure: ids are shown then, and pages open as pages). */
export function usePlatforms(): Platform[] | null {
  const [platforms, setPlatforms] = useState<Platform[] | null>(null)
  useEffect(() => {
    let live = true
    api.listPlatforms().then(
      (ps) => live && setPlatforms(ps),
      () => {},
    )
    return () => {
      live = false
    }
  }, [])
  return platforms
}

/** Platform id → title ("zendesk" → "Zendesk"); empty until loaded, and on failure (ids are shown then). */
export function titlesOf(platforms: readonly Platform[] | null): Record<string, string> {
  return Object.fromEntries((platforms ?? []).map((p) => [p.id, p.title]))
}

/** Whether the platform's authorize page opens in a pop-up window (`authorize_in: 'popup'`). */
export const authorizesInPopup = (platform: Pick<Platform, 'authorize_in'> | undefined): boolean =>
  platform?.authorize_in === 'popup'

export function usePlatformTitles(): Record<string, string> {
  const platforms = usePlatforms()
  return useMemo(() => titlesOf(platforms), [platforms])
}
