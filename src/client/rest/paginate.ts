/** Async iterators over every page of the `{list, total}` history endpoints. */
import { PAGE_SIZE_MAX, type ListResult, type PageParams } from '../../protocol/rest/common';

/**
 * Yields every item from `params.page` (default 1) on, fetching pages of `params.pageSize`
 * (default the maximum, 100) until a short or empty page or `total` is reached. Lists that grow
 * while being read may repeat an item across a page boundary; dedupe by id when that matters.
 */
export async function* paginate<T, P extends PageParams>(fetchPage: (p: P) => Promise<ListResult<T>>, params: P): AsyncGenerator<T, void, undefined> {
  const pageSize = params.pageSize ?? PAGE_SIZE_MAX;
  let page = params.page ?? 1;
  for (;;) {
    const r = await fetchPage({ ...params, page, pageSize });
    for (const item of r.list) yield item;
    if (r.list.length < pageSize || page * pageSize >= r.total) return;
    page++;
  }
}
