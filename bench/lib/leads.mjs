// Leads for bench/run.mjs's uploads: realistic, unique, valid E.164 US phones (+1212 and 7
// digits).

const FIRST = (
  'Alva Benjamin Catherine Dmitri Eleanor Francisco Gabriela Harrison Isabella Jonathan ' +
  'Katherine Leonardo Margaret Nathaniel Olivia Priyanka Quentin Rosalind Sebastian Theodore'
).split(' ');
const LAST = (
  'Treutel Abernathy Castellanos Donnelly Fitzgerald Gutierrez Hoffmann Kowalski Lindqvist ' +
  'McAllister Nakamura Okonkwo Pemberton Ramirez Schneider Thompson Vanderbilt Whitfield ' +
  'Yamamoto Zimmerman'
).split(' ');
const COMPANY_SUFFIX = (
  'Group|and Sons|Holdings LLC|Realty Partners|Logistics Inc|Consulting|Home Services|' +
  'Capital Management'
).split('|');
const TITLES = (
  'Corporate Operations Representative|Senior Account Executive|Regional Marketing Manager|' +
  'Director of Business Development|Chief Financial Officer|Customer Success Specialist|' +
  'Lead Product Designer|Principal Software Engineer|Human Resources Coordinator|' +
  'Vice President of Sales'
).split('|');

let phoneCounter = 2_000_000; // every phone of the run is distinct: +12122000000, +12122000001, ...
/** `count` leads, each with a phone no other lead of the run has. */
export function makeLeads(count) {
  return Array.from({ length: count }, () => {
    const n = phoneCounter++;
    const first = FIRST[n % FIRST.length];
    const last = LAST[Math.floor(n / 7) % LAST.length];
    const companyLast = LAST[Math.floor(n / 3) % LAST.length];
    const company = `${companyLast} ${COMPANY_SUFFIX[n % COMPANY_SUFFIX.length]}`;
    const domain = `${companyLast.toLowerCase()}-${company.length}.com`;
    return {
      phone: `+1212${n}`,
      first_name: first,
      last_name: last,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${n % 1000}@${domain}`,
      company,
      title: TITLES[Math.floor(n / 11) % TITLES.length],
    };
  });
}

/** The JSON body of `POST /api/v1/leads/upload` of `leads` into campaign `campaignId`. */
export const uploadBody = (campaignId, leads) =>
  JSON.stringify({
    campaign_id: campaignId,
    compliance_acknowledged: true,
    source: 'bench',
    leads,
  });
