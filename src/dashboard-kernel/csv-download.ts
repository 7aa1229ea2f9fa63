import { applyDecorators, Header, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiProduces } from '@nestjs/swagger';
import { Readable } from 'node:stream';

/**
 * A CSV download (docs/dashboard.md#imports): `pages` (the header row first) streamed as they
 * are produced, as an attachment named `fileName`. Look the resource up before calling, so an
 * unknown one is a `404` envelope, never a half-written file.
 */
export function csvDownload(pages: AsyncIterable<string>, fileName: string): StreamableFile {
  return new StreamableFile(Readable.from(pages), {
    type: 'text/csv; charset=utf-8',
    disposition: `attachment; filename="${fileName}"`,
  });
}

/** Documents a route answering {@link csvDownload}, never cached; `description` says its columns. */
export const ApiCsvDownload = (description: string): MethodDecorator =>
  applyDecorators(
    Header('Cache-Control', 'no-store'),
    ApiProduces('text/csv'),
    ApiOkResponse({ description, content: { 'text/csv': { schema: { type: 'string' } } } }),
  );
