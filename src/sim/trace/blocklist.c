/*
 * sim/trace/blocklist.c - lists of page numbers.
 *
 * The simplest trace: each entry names one page, read whole.  The request
 * is a read of page_size bytes (zc_trace_options.page_size, 4096 by
 * default) at byte offset page * page_size of device 0.  Lists carry no
 * time: time_ns is 0 throughout, so only their order counts.
 *
 *   blocklist-text  one decimal page number per line; blanks around it,
 *                   blank lines and '#' lines allowed.  Sniffed.
 *   blocklist-u32   little-endian 32-bit page numbers, back to back
 *   blocklist-u64   little-endian 64-bit page numbers
 *
 * The binary lists are never sniffed (any bytes would pass), and a file
 * whose size is not a multiple of the entry size is refused when the
 * trace is opened (reader.c checks entry_size).  A page whose bytes would
 * lie past 2^64 is an error.  Empty files are lists of no pages.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "reader.h"

static int page_request(struct zc__tfile *f, uint64_t page, zc_request *req,
                        uint64_t at)
{
    if (!zc__byte_span(page, f->page_size, 1, f->page_size, &req->offset,
                       &req->length)) {
        if (at == UINT64_MAX)
            return zc__tf_fail_line(f,
                                    "page %llu is past the largest byte "
                                    "offset",
                                    (unsigned long long)page);
        return zc__tf_fail_at(f, at,
                              "page %llu is past the largest byte offset",
                              (unsigned long long)page);
    }
    req->time_ns = 0;
    req->dev = 0;
    req->write = false;
    return 1;
}

static int text_next(struct zc__tfile *f, zc_request *req)
{
    const char *p, *end;
    uint64_t page;
    int rc;

    for (;;) {
        rc = zc__tf_data_line(f, &p, &end);
        if (rc <= 0)
            return rc;
        if (!zc__parse_u64(&p, end, &page) || zc__skip_space(p, end) != end)
            return zc__tf_fail_line(f, "expected one page number (decimal, "
                                       "below 2^64)");
        return page_request(f, page, req, UINT64_MAX);
    }
}

static bool text_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    const char *line, *p, *end;
    uint64_t page;
    size_t llen;

    if (!zc__sniff_first_line(head, len, at_eof, &line, &llen))
        return false;
    end = line + llen;
    p = zc__skip_space(line, end);
    return zc__parse_u64(&p, end, &page) && zc__skip_space(p, end) == end;
}

/* One little-endian entry of size bytes. */
static int binary_next(struct zc__tfile *f, zc_request *req, size_t size)
{
    uint64_t at = zc__tf_offset(f), page = 0;
    const unsigned char *p;
    size_t avail;
    int rc = zc__tf_fill(f, size, &avail);

    if (rc || avail == 0)
        return rc;
    if (avail < size) /* the file changed size since it was opened */
        return zc__tf_fail_at(f, at, "truncated entry: %zu of %zu bytes", avail,
                              size);
    p = f->buf + f->pos;
    for (size_t i = size; i-- > 0;)
        page = page << 8 | p[i];
    f->pos += size;
    f->rec_off = at;
    return page_request(f, page, req, at);
}

static int u32_next(struct zc__tfile *f, zc_request *req)
{
    return binary_next(f, req, 4);
}

static int u64_next(struct zc__tfile *f, zc_request *req)
{
    return binary_next(f, req, 8);
}

const struct zc__trace_format zc__trace_blocklist_text = {
    .name = "blocklist-text",
    .doc = "one decimal page number per line, each a read of one page",
    .sniff = text_sniff,
    .next = text_next,
};

const struct zc__trace_format zc__trace_blocklist_u32 = {
    .name = "blocklist-u32",
    .doc = "little-endian 32-bit page numbers, each a read of one page",
    .entry_size = 4,
    .next = u32_next,
};

const struct zc__trace_format zc__trace_blocklist_u64 = {
    .name = "blocklist-u64",
    .doc = "little-endian 64-bit page numbers, each a read of one page",
    .entry_size = 8,
    .next = u64_next,
};
