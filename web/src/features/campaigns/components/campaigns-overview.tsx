import { Anchor, Badge, Paper, Table } from '@mantine/core';
import { IconSpeakerphone } from '@tabler/icons-react';
import { Link } from 'react-router';
import { EmptyPanel, PageError, PageHeader, PageLoader } from '../../../components/ui/page-states';
import { useCampaigns } from '../api/queries';

/** The account's campaigns (CONTRACT 10.4.1), each with its number of webhook endpoints. */
export function CampaignsOverview() {
  const campaigns = useCampaigns();
  return (
    <>
      <PageHeader
        title="Campaigns"
        description="Your account's campaigns and, for each, its webhook endpoints with their delivery health."
      />
      {campaigns.isPending ? (
        <PageLoader label="Loading your campaigns…" />
      ) : campaigns.isError ? (
        <PageError error={campaigns.error} onRetry={() => void campaigns.refetch()} />
      ) : campaigns.data.length === 0 ? (
        <EmptyPanel
          title="No campaigns yet"
          description="Your operator creates campaigns. Once there is one, its webhook endpoints are managed here."
          icon={<IconSpeakerphone size={28} aria-hidden />}
        />
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={360}>
            <Table verticalSpacing="sm" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Campaign</Table.Th>
                  <Table.Th>Region</Table.Th>
                  <Table.Th ta="right">Endpoints</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {campaigns.data.map((campaign) => (
                  <Table.Tr key={campaign.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/campaigns/${campaign.id}`} fw={500}>
                        {campaign.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      {campaign.default_region ? (
                        <Badge variant="light" color="gray">
                          {campaign.default_region}
                        </Badge>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                    <Table.Td ta="right">{campaign.endpoint_count}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
    </>
  );
}
