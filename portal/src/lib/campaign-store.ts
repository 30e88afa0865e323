// The last recovery campaigns started or watched in this tab (sessionStorage: gone with the tab).
const KEY = 'herald-portal.campaigns';
const KEEP = 10;

export function storedCampaignIds(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').slice(0, KEEP) : [];
  } catch {
    return [];
  }
}

function store(ids: string[]): string[] {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(ids));
  } catch {
    // Storage full or disabled: the list lives as long as the page.
  }
  return ids;
}

export const rememberCampaign = (id: string): string[] =>
  store([id, ...storedCampaignIds().filter((x) => x !== id)].slice(0, KEEP));

export const forgetCampaign = (id: string): string[] => store(storedCampaignIds().filter((x) => x !== id));
