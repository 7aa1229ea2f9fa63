import { Anchor, Badge } from '@mantine/core';
import { IconSpeakerphone } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type DataColumn } from '../../../components/ui/data-table';
import { PageHeader } from '../../../components/ui/page-states';
import { PagedTable } from '../../../components/ui/paged-table';
import { useCampaigns } from '../../../api/campaigns';
import type { Campaign } from '../../../api/types';

/** Each campaign, its region and its number of webhook endpoints (three columns fit a phone). */
const COLUMNS: Array<DataColumn<Campaign>> = [
  {
    key: 'name',
    header: 'Campaign',
    rowHeader: true,
    cell: (campaign) => (
      <Anchor component={Link} to={`/campaigns/${campaign.id}`} fw={500}>
        {campaign.name}
      </Anchor>
    ),
  },
  {
    key: 'region',
    header: 'Region',
    cell: (campaign) =>
      campaign.default_region ? (
        <Badge variant="light" color="gray">
          {campaign.default_region}
        </Badge>
      ) : (
        '—'
      ),
  },
  {
    key: 'endpoints',
    header: 'Endpoints',
    numeric: true,
    cell: (campaign) => campaign.endpoint_count,
  },
];

/** The account's campaigns, each with its number of webhook endpoints. */
export function CampaignsOverview() {
  const campaigns = useCampaigns();
  return (
    <>
      <PageHeader
        title="Campaigns"
        description="Your account's campaigns and, for each, its webhook endpoints with their delivery health."
      />
      <PagedTable
        query={campaigns}
        loading="Loading your campaigns…"
        empty={{
          title: 'No campaigns yet',
          description:
            'Your operator creates campaigns. Once there is one, its webhook endpoints are managed here.',
          icon: <IconSpeakerphone size={28} aria-hidden />,
        }}
        columns={COLUMNS}
        rows={campaigns.data ?? []}
        rowKey={(campaign) => campaign.id}
        label="Campaigns"
        minWidth={300}
      />
    </>
  );
}
