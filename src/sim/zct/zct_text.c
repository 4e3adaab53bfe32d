/*
 * sim/zct/zct_text.c - the text form of op streams, for people and for
 * hand-written tests.
 *
 *   zct-text 1                      first line: the form and its version
 *   meta KEY VALUE                  header fields, before the first op
 *                                   (meta page_size N sets the page size,
 *                                   default 4096)
 *   init_fs POOL
 *   init_shared_fs POOL UUID        UUID: 32 hex digits
 *   put POOL KEY INDEX [active] CONTENT
 *   get POOL KEY INDEX [ahead]      ahead: a page read ahead
 *   invalidate_page POOL KEY INDEX [write_miss|write_hit]
 *   invalidate_inode POOL KEY
 *   invalidate_fs POOL
 *   pc_hits N
 *   end                             required: a stream without it is cut
 *
 * KEY is an inode number, or fh: and 48 hex digits (the 24 bytes of the
 * six little-endian words).  CONTENT is zero, fill:0xWORD (a 64-bit word
 * repeated), random:SEED (SplitMix64 bytes), text:STRING (repeated to fill
 * the page), or hex:DIGITS (the first bytes; the rest of the page zero).
 * Blank lines and lines starting with # are skipped; tokens are separated
 * by blanks.  Errors say "FILE:LINE: what".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/bytes.h"
#include "zct.h"

enum { MAX_TOKENS = ZCT_TEXT_TOKENS };

static int fail(struct zc_ops_reader *r, const char *what, const char *tok)
{
    if (tok)
        return zc__ops_fail(r, -ZC_EFORMAT, "line %" PRIu64 ": %s '%.64s'",
                            r->lineno, what, tok);
    return zc__ops_fail(r, -ZC_EFORMAT, "line %" PRIu64 ": %s", r->lineno,
                        what);
}

/* The next line, split into blank-separated tokens in place; 1, 0 at the
 * end of the file, or an error. */
static int next_line(struct zc_ops_reader *r, char **tok, int *ntok)
{
    for (;;) {
        ssize_t n;
        char *p, *save = NULL;

        errno = 0;
        n = getline(&r->line, &r->line_cap, r->f);
        if (n < 0) {
            if (ferror(r->f))
                return zc__ops_fail(r, -ZC_EIO, "read error: %s",
                                    strerror(errno));
            return 0;
        }
        r->lineno++;
        if (memchr(r->line, '\0', (size_t)n))
            return fail(r, "NUL byte in a text line", NULL);
        *ntok = 0;
        for (p = strtok_r(r->line, " \t\r\n", &save); p;
             p = strtok_r(NULL, " \t\r\n", &save)) {
            if (*ntok == 0 && *p == '#')
                break;
            if (*ntok == MAX_TOKENS)
                return fail(r, "too many fields", p);
            tok[(*ntok)++] = p;
        }
        if (*ntok)
            return 1;
    }
}

static int number(struct zc_ops_reader *r, const char *s, uint64_t max,
                  uint64_t *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return fail(r, "not a number:", s);
    errno = 0;
    /* Decimal, or hex with 0x: never octal. */
    *v = strtoull(s, &end,
                  s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
    if (errno || *end)
        return fail(r, errno ? "number out of range:" : "not a number:", s);
    if (*v > max)
        return fail(r, "number out of range:", s);
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Exactly n bytes from 2n hex digits (n = 0: any even number up to cap). */
static int hexbytes(const char *s, uint8_t *out, size_t n, size_t cap,
                    size_t *got)
{
    size_t len = strlen(s);

    if (len % 2 || (n && len != 2 * n) || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    if (got)
        *got = len / 2;
    return 0;
}

static int text_key(struct zc_ops_reader *r, const char *s, zc_filekey *k)
{
    uint8_t raw[24];
    uint64_t ino;

    if (!strncmp(s, "fh:", 3)) {
        if (hexbytes(s + 3, raw, 24, 24, NULL))
            return fail(r, "a file handle is fh: and 48 hex digits:", s);
        for (int i = 0; i < 6; i++)
            k->fh[i] = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                       (uint32_t)raw[4 * i + 2] << 16 |
                       (uint32_t)raw[4 * i + 3] << 24;
        return 0;
    }
    if (number(r, s, UINT64_MAX, &ino))
        return r->rc;
    *k = zc_filekey_from_ino(ino);
    return 0;
}

static int text_content(struct zc_ops_reader *r, const char *s)
{
    uint8_t *pg = r->page;
    size_t ps = r->page_size, got;
    uint64_t v;

    if (!strcmp(s, "zero")) {
        memset(pg, 0, ps);
    } else if (!strncmp(s, "fill:", 5)) {
        if (number(r, s + 5, UINT64_MAX, &v))
            return r->rc;
        for (size_t i = 0; i < ps; i += 8)
            memcpy(pg + i, &v, 8);
    } else if (!strncmp(s, "random:", 7)) {
        if (number(r, s + 7, UINT64_MAX, &v))
            return r->rc;
        for (size_t i = 0; i < ps; i += 8) {
            uint64_t z = (v += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
            memcpy(pg + i, &z, 8);
        }
    } else if (!strncmp(s, "text:", 5) && s[5]) {
        size_t n = strlen(s + 5);
        for (size_t i = 0; i < ps; i++)
            pg[i] = (uint8_t)s[5 + i % n];
    } else if (!strncmp(s, "hex:", 4)) {
        memset(pg, 0, ps);
        if (hexbytes(s + 4, pg, 0, ps, &got))
            return fail(r,
                        "hex: needs pairs of hex digits, at most a page:", s);
    } else {
        return fail(r,
                    "content is zero, fill:WORD, random:SEED, text:STRING "
                    "or hex:DIGITS, not",
                    s);
    }
    return 0;
}

static const struct {
    const char *name;
    zc_op_kind kind;
    int args; /* after the name, not counting optional ones */
} ops[] = {
    {"init_fs", ZC_OP_INIT_FS, 1},
    {"init_shared_fs", ZC_OP_INIT_SHARED_FS, 2},
    {"put", ZC_OP_PUT, 4},
    {"get", ZC_OP_GET, 3},
    {"invalidate_page", ZC_OP_INVALIDATE_PAGE, 3},
    {"invalidate_inode", ZC_OP_INVALIDATE_INODE, 2},
    {"invalidate_fs", ZC_OP_INVALIDATE_FS, 1},
    {"pc_hits", ZC_OP_PC_HITS, 1},
};

/* The checks of an op parsed whole (its pool, the stream's count), and
 * counting it: 1, or the error. */
static int took(struct zc_ops_reader *r, const zc_op *op)
{
    char where[48];

    snprintf(where, sizeof(where), "line %" PRIu64 ": ", r->lineno);
    if (zc__ops_pool_check(r, op, where) || zc__ops_took(r, op, where))
        return r->rc;
    return 1;
}

static int parse_op(struct zc_ops_reader *r, char **tok, int ntok, zc_op *op)
{
    size_t i;
    uint64_t v;
    bool has_index;

    memset(op, 0, sizeof(*op));
    if (!strcmp(tok[0], "end")) {
        if (ntok != 1)
            return fail(r, "end takes nothing", tok[1]);
        if (next_line(r, tok, &ntok) != 0)
            return r->rc ? r->rc : fail(r, "data after end", tok[0]);
        r->end = true;
        return 0;
    }
    if (!strcmp(tok[0], "meta"))
        return fail(r, "meta after the first op", NULL);
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strcmp(tok[0], ops[i].name))
            break;
    if (i == sizeof(ops) / sizeof(ops[0]))
        return fail(r, "unknown op", tok[0]);
    op->kind = ops[i].kind;
    if (ntok - 1 < ops[i].args ||
        ntok - 1 > ops[i].args + (op->kind == ZC_OP_INVALIDATE_PAGE ||
                                  op->kind == ZC_OP_PUT ||
                                  op->kind == ZC_OP_GET))
        return fail(r, "wrong number of fields for", tok[0]);
    if (op->kind == ZC_OP_PC_HITS) {
        if (number(r, tok[1], UINT64_MAX, &op->count))
            return r->rc;
        if (op->count == 0)
            return fail(r, "pc_hits of 0", NULL);
        return took(r, op);
    }
    if (number(r, tok[1], ZCT_POOL_MAX - 1, &v))
        return r->rc;
    op->pool = (uint32_t)v;
    op->page_size = r->page_size;
    has_index = op->kind == ZC_OP_PUT || op->kind == ZC_OP_GET ||
                op->kind == ZC_OP_INVALIDATE_PAGE;
    if (op->kind == ZC_OP_INIT_SHARED_FS &&
        hexbytes(tok[2], op->uuid, 16, 16, NULL))
        return fail(r, "a uuid is 32 hex digits:", tok[2]);
    if ((has_index || op->kind == ZC_OP_INVALIDATE_INODE) &&
        text_key(r, tok[2], &op->key))
        return r->rc;
    if (has_index && number(r, tok[3], UINT64_MAX, &op->index))
        return r->rc;
    if (op->kind == ZC_OP_PUT) {
        /* put POOL KEY INDEX [active] CONTENT */
        if (ntok == 6) {
            if (strcmp(tok[4], "active"))
                return fail(r, "put flag is active, not", tok[4]);
            op->flags = ZC_OP_PUT_ACTIVE;
        }
        if (text_content(r, tok[ntok - 1]))
            return r->rc;
        op->page = r->page;
    }
    if (op->kind == ZC_OP_GET && ntok == 5) {
        if (strcmp(tok[4], "ahead"))
            return fail(r, "get flag is ahead, not", tok[4]);
        op->flags = ZC_OP_GET_AHEAD;
    }
    if (op->kind == ZC_OP_INVALIDATE_PAGE && ntok == 5) {
        if (!strcmp(tok[4], "write_miss"))
            op->flags = ZC_OP_WRITE_MISS;
        else if (!strcmp(tok[4], "write_hit"))
            op->flags = ZC_OP_WRITE_HIT;
        else
            return fail(r, "flag is write_miss or write_hit, not", tok[4]);
    }
    return took(r, op);
}

int zc__ops_text_open(struct zc_ops_reader *r)
{
    char *tok[MAX_TOKENS];
    int ntok, rc;
    uint64_t ps = 4096;

    /* The first 8 bytes ("zct-text") are read: the rest of line 1. */
    errno = 0;
    if (getline(&r->line, &r->line_cap, r->f) < 0 ||
        strncmp(r->line, " 1", 2) != 0 ||
        r->line[2 + strspn(r->line + 2, "\r\n")]) {
        r->lineno = 1;
        return fail(r, "first line is not \"" ZCT_TEXT_MAGIC "\"", NULL);
    }
    r->lineno = 1;
    r->page_size = 4096;
    for (;;) {
        rc = next_line(r, tok, &ntok);
        if (rc < 0)
            return rc;
        if (rc == 0 || strcmp(tok[0], "meta")) {
            /* Not a header line: the first op, kept for the first next()
             * (or nothing, and that next() finds the end missing). */
            if (rc) {
                memcpy(r->tok, tok, sizeof(tok));
                r->ntok = ntok;
            }
            break;
        }
        if (ntok < 2)
            return fail(r, "meta takes a key and a value", NULL);
        /* The value is the rest of the line: undo the tokenising. */
        for (int i = 3; i < ntok; i++)
            tok[i - 1][strlen(tok[i - 1])] = ' ';
        if (ntok == 2)
            tok[2] = "";
        if (!strcmp(tok[1], "page_size")) {
            if (number(r, tok[2], 65536, &ps))
                return r->rc;
            if (!zc__page_size_ok(ps))
                return fail(
                    r, "page_size is a power of two in 512..65536:", tok[2]);
            r->page_size = (size_t)ps;
        }
        if (strchr(tok[1], '='))
            return fail(r, "a meta key has no '=':", tok[1]);
        rc = zc__ops_meta_add(r, tok[1], tok[2]);
        if (rc)
            return zc__ops_fail(r, rc, "out of memory");
    }
    if (!zc_ops_meta(r, "page_size")) {
        char v[24];
        snprintf(v, sizeof(v), "%zu", r->page_size);
        if (zc__ops_meta_add(r, "page_size", v))
            return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    }
    r->page = malloc(r->page_size);
    if (!r->page)
        return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    return 0;
}

int zc__ops_text_next(struct zc_ops_reader *r, zc_op *op)
{
    char *tok[MAX_TOKENS];
    int ntok, rc;

    if (r->ntok) {
        /* The line the header ended at: its tokens are still in r->line. */
        memcpy(tok, r->tok, sizeof(tok));
        ntok = r->ntok;
        r->ntok = 0;
        return parse_op(r, tok, ntok, op);
    }
    rc = next_line(r, tok, &ntok);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "line %" PRIu64
                            ": stream ends without its end line (truncated?)",
                            r->lineno);
    return parse_op(r, tok, ntok, op);
}
