/*
 * fuzz/fuzz_pack.c - libFuzzer target: the content-pack reader (.zcp).
 *
 * The input is written to a memory file and opened with zc_pack_open();
 * every content is read (in order, then a few again in an order the input
 * picks, so the block cache is exercised) and every key is looked up.
 * What must hold whatever the input:
 *   - the open fails with -ZC_EFORMAT (memory files never fail to read)
 *     and a one-line message starting with the path, or succeeds with a
 *     page size of 512..65536 and no more contents and keys than the
 *     input's bytes could describe;
 *   - a page read fails only with -ZC_EFORMAT and a message naming the
 *     path and an offset; ids past the end are -ZC_EINVAL;
 *   - the same id read twice gives the same bytes;
 *   - lookups never fail but with -ZC_ENOENT, and a found id is a content.
 * The reader's index checksum is off in fuzzing builds, so mutated
 * indexes reach the checks behind it.
 *
 * Seeds (corpus/fuzz_pack/, written with zc_pack_writer at level 1, kept
 * by fuzz/make-corpus.sh since their names do not start with "seed-"): an
 * empty pack, three keyed 4 KiB contents in one block, 70 contents of 512
 * bytes in two blocks with six keys, and the three-content pack cut short.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file in;
    char msg[512];
    zc_pack *p;
    uint8_t *pg, *again;
    uint64_t n, h;
    size_t ps;
    int rc;

    fuzz_file_set(0, data, size, &in);
    rc = zc_pack_open(in.path, &p, msg, sizeof(msg));
    if (rc) {
        FUZZ_CHECK(rc == -ZC_EFORMAT);
        FUZZ_CHECK(msg[0] && !strchr(msg, '\n'));
        FUZZ_CHECK(strncmp(msg, in.path, strlen(in.path)) == 0);
        return 0;
    }
    ps = zc_pack_page_size(p);
    n = zc_pack_contents(p);
    FUZZ_CHECK(ps >= 512 && ps <= 65536 && !(ps & (ps - 1)));
    FUZZ_CHECK(n <= size * 64 && zc_pack_keys(p) <= size / 28);
    pg = malloc(ps);
    again = malloc(ps);
    FUZZ_CHECK(pg && again);
    for (uint64_t id = 0; id < n; id++) {
        rc = zc_pack_page(p, id, pg);
        if (rc) {
            const char *e = zc_pack_error(p);
            FUZZ_CHECK(rc == -ZC_EFORMAT);
            FUZZ_CHECK(strncmp(e, in.path, strlen(in.path)) == 0);
            FUZZ_CHECK(strstr(e, "offset") && !strchr(e, '\n'));
        }
    }
    h = fuzz_hash(data, size);
    for (int i = 0; n && i < 16; i++, h = h * 6364136223846793005ull + 1) {
        uint64_t id = (h >> 17) % n;
        if (zc_pack_page(p, id, pg) == 0) {
            FUZZ_CHECK(zc_pack_page(p, (id + 1) % n, again) != -ZC_EINVAL);
            FUZZ_CHECK(zc_pack_page(p, id, again) == 0);
            FUZZ_CHECK(memcmp(pg, again, ps) == 0);
        }
    }
    FUZZ_CHECK(zc_pack_page(p, n, pg) == -ZC_EINVAL);
    for (int i = 0; i < 16; i++, h = h * 6364136223846793005ull + 1) {
        uint64_t id;
        rc = zc_pack_lookup(p, (uint32_t)(h >> 60), (h >> 40) & 3,
                            (h >> 20) & 255, &id);
        FUZZ_CHECK(rc == 0 || rc == -ZC_ENOENT);
        if (rc == 0)
            FUZZ_CHECK(id < n);
    }
    free(pg);
    free(again);
    zc_pack_close(p);
    return 0;
}
