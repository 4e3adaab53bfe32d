/*
 * sim/fidelity/open.c - a fidelity run opened (zc_fidelity_open(),
 * zcache_sim.h), and the object that holds its result.
 *
 * Opening finds the recording's two streams (NAME.zca, NAME.kernel.zct:
 * both regular files), checks the options (the models are the registry's,
 * the capacities a zcache can have, the zcache spec parses with the
 * streams' page size), opens the access stream through a session (the
 * content source it names, resolved beside it and checked against it; the
 * readahead limit of its header; pages of its header's size) and the
 * kernel stream's header: the same page size, the same pack.  Nothing is
 * read past the headers, so that a caller can refuse an output that would
 * overwrite an input first.  The rows (each model, in the order given,
 * at each size) and their curves are made here, counts 0.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fidelity.h"

static const char *const size_names[ZC_FIDELITY_SIZES] = {"kernel", "median"};

static const uint64_t default_caps[] = {256u << 10, 1u << 20, 4u << 20,
                                        16u << 20, 64u << 20};

const char *zc_fidelity_size_name(unsigned size)
{
    return size < ZC_FIDELITY_SIZES ? size_names[size] : NULL;
}

/* ---- opening ------------------------------------------------------------ */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);

    return n > t && strcmp(s + n - t, tail) == 0;
}

/* NAME.zca and NAME.kernel.zct of the recording NAME, NAME.zca or
 * NAME.kernel.zct; each must be a regular file (a session reads a stream
 * more than once). */
static int recording_paths(zc_fidelity *f, const char *r)
{
    size_t base = strlen(r);
    struct stat st;

    if (ends_with(r, ".zca"))
        base -= 4;
    else if (ends_with(r, ".kernel.zct"))
        base -= 11;
    f->access_path = malloc(base + 5);
    f->kernel_path = malloc(base + 12);
    if (!f->access_path || !f->kernel_path)
        return set_error(f, -ZC_ENOMEM, "out of memory");
    snprintf(f->access_path, base + 5, "%.*s.zca", (int)base, r);
    snprintf(f->kernel_path, base + 12, "%.*s.kernel.zct", (int)base, r);
    for (int k = 0; k < 2; k++) {
        const char *p = k ? f->kernel_path : f->access_path;
        if (stat(p, &st) != 0)
            return set_error(f, -ZC_EIO,
                             "%s: %s (a recording NAME is NAME.zca and "
                             "NAME.kernel.zct)",
                             p, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return set_error(f, -ZC_EIO, "%s: not a regular file", p);
    }
    return 0;
}

/* The models: the registry's strings, each once, in the order given. */
static int take_models(zc_fidelity *f, const zc_fidelity_options *o)
{
    size_t n = 0;

    while (zc_page_cache_model_name(n))
        n++;
    if (o->models && o->nmodels)
        n = o->nmodels;
    if (!(f->models = calloc(n ? n : 1, sizeof(*f->models))))
        return set_error(f, -ZC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *m = o->models && o->nmodels ? o->models[i]
                                                : zc_page_cache_model_name(i);
        size_t k = 0;
        bool dup = false;
        while (m && zc_page_cache_model_name(k) &&
               strcmp(zc_page_cache_model_name(k), m))
            k++;
        if (!m || !zc_page_cache_model_name(k))
            return set_error(f, -ZC_EINVAL, "no page-cache model '%.64s'",
                             m ? m : "(null)");
        for (size_t j = 0; j < f->nmodels; j++)
            dup |= f->models[j] == zc_page_cache_model_name(k);
        if (!dup)
            f->models[f->nmodels++] = zc_page_cache_model_name(k);
    }
    if (!f->nmodels)
        return set_error(f, -ZC_EINVAL, "no page-cache model registered");
    return 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The curve's capacities: sorted, each once, each one a zcache can have. */
static int take_caps(zc_fidelity *f, const zc_fidelity_options *o)
{
    const uint64_t *c = o->capacities;
    size_t n = o->ncapacities;

    if (o->no_curve)
        return 0;
    if (!c || !n) {
        c = default_caps;
        n = sizeof(default_caps) / sizeof(*default_caps);
    }
    if (!(f->caps = malloc(n * sizeof(*f->caps))))
        return set_error(f, -ZC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!c[i] || c[i] > ZC_CAPACITY_MAX)
            return set_error(f, -ZC_EINVAL,
                             "zcache capacity %" PRIu64
                             ": want above 0 and at most 15 GiB",
                             c[i]);
    memcpy(f->caps, c, n * sizeof(*f->caps));
    qsort(f->caps, n, sizeof(*f->caps), u64_cmp);
    for (size_t i = 0; i < n; i++)
        if (!f->ncaps || f->caps[f->ncaps - 1] != f->caps[i])
            f->caps[f->ncaps++] = f->caps[i];
    return 0;
}

static int take_options(zc_fidelity *f, const zc_fidelity_options *o)
{
    int rc;

    if ((rc = take_models(f, o)) || (rc = take_caps(f, o)))
        return rc;
    if (o->sizes >> ZC_FIDELITY_SIZES)
        return set_error(f, -ZC_EINVAL, "size modes 0x%x: want bits of %d",
                         o->sizes, ZC_FIDELITY_SIZES);
    for (int k = 0; k < ZC_FIDELITY_SIZES; k++)
        f->size_on[k] = !o->sizes || (o->sizes >> k & 1);
    if (!(f->zspec = strdup(o->zcache ? o->zcache : "")))
        return set_error(f, -ZC_ENOMEM, "out of memory");
    f->memo_bytes = o->no_memo      ? 0
                    : o->memo_bytes ? (size_t)o->memo_bytes
                                    : (size_t)1 << 30;
    f->progress = o->progress;
    f->progress_ctx = o->progress_ctx;
    return 0;
}

/* The access stream through a session (in pages of its header's size). */
static int open_access(zc_fidelity *f, const zc_fidelity_options *o)
{
    const char *path = f->access_path;
    zc_session_options so = {0};
    int rc;

    so.content = o->content;
    so.model = f->models[0];
    so.read_ahead_set = o->read_ahead_set;
    so.read_ahead_kb = o->read_ahead_kb;
    if ((rc = zc_session_open(&path, 1, &so, &f->s, f->err, sizeof(f->err))))
        return rc;
    if (strncmp(zc_session_format(f->s), "access", 6) != 0)
        return set_error(f, -ZC_EFORMAT,
                         "%s: not an access stream (read as %s)", path,
                         zc_session_format(f->s));
    return 0;
}

/* The zcaches' configuration, in the streams' page size. */
static int take_zcache_spec(zc_fidelity *f)
{
    size_t ps = zc_session_page_size(f->s);
    char why[512];

    f->cfg = zc_config_default();
    f->cfg.page_size = ps;
    f->cfg.capacity_bytes = SIZE_MAX; /* a sentinel: the spec names one? */
    if (zc_config_parse_error(&f->cfg, f->zspec, why, sizeof(why)))
        return set_error(f, -ZC_EINVAL, "zcache spec: %s", why);
    if (f->cfg.capacity_bytes != SIZE_MAX)
        return set_error(f, -ZC_EINVAL,
                         "zcache spec %.200s names a capacity: the curve's "
                         "capacities are given apart (--capacity)",
                         f->zspec);
    if (f->cfg.page_size != ps)
        return set_error(f, -ZC_EINVAL,
                         "zcache spec page_size=%zu differs from the "
                         "streams' page size %zu",
                         f->cfg.page_size, ps);
    return 0;
}

/* The kernel stream's header: the access stream's page size and pack. */
static int open_kernel(zc_fidelity *f)
{
    const char *kid, *aid = zc_session_meta(f->s, "pack_id");
    uint64_t a, b;
    char *end1, *end2;
    int rc;

    if ((rc = zc_ops_open(f->kernel_path, &f->kin, f->err, sizeof(f->err))))
        return rc;
    if (zc_ops_page_size(f->kin) != zc_session_page_size(f->s))
        return set_error(f, -ZC_EINVAL,
                         "%s: pages of %zu bytes, but %s has pages of %zu",
                         f->kernel_path, zc_ops_page_size(f->kin),
                         f->access_path, zc_session_page_size(f->s));
    /* its pack, or (a stream a session saved) its recording's */
    const char *key = "pack_id";
    if (!(kid = zc_ops_meta(f->kin, key)))
        kid = zc_ops_meta(f->kin, key = "recording_pack_id");
    if (!kid || !aid)
        return 0;
    a = strtoull(kid, &end1, 16);
    b = strtoull(aid, &end2, 16);
    if (*end1 || *end2 || a != b)
        return set_error(f, -ZC_EINVAL,
                         "%s: %s=%.32s, but %s has pack_id=%.32s: the "
                         "streams are of different recordings",
                         f->kernel_path, key, kid, f->access_path, aid);
    return 0;
}

/* The rows (each model at each size) and their curves, counts 0. */
static int make_rows(zc_fidelity *f)
{
    size_t nsizes = f->size_on[0] + f->size_on[1];
    size_t nrows = f->nmodels * nsizes, npoints = nrows * f->ncaps;

    f->rows = calloc(nrows ? nrows : 1, sizeof(*f->rows));
    f->points = calloc(npoints ? npoints : 1, sizeof(*f->points));
    if (!f->rows || !f->points)
        return set_error(f, -ZC_ENOMEM, "out of memory");
    for (size_t m = 0, i = 0; m < f->nmodels; m++)
        for (int k = 0; k < ZC_FIDELITY_SIZES; k++) {
            zc_fidelity_row *row = &f->rows[i];
            if (!f->size_on[k])
                continue;
            row->model = f->models[m];
            row->size = (zc_fidelity_size)k;
            row->overlap = -1;
            row->curve = &f->points[i * f->ncaps];
            for (size_t c = 0; c < f->ncaps; c++)
                f->points[i * f->ncaps + c].capacity_bytes = f->caps[c];
            i++;
        }
    f->res.rows = f->rows;
    f->res.nrows = nrows;
    return 0;
}

/* What is known before the work. */
static int fill_header(zc_fidelity *f)
{
    const char *from = "default";

    if (!(f->content = strdup(zc_session_content(f->s))))
        return set_error(f, -ZC_ENOMEM, "out of memory");
    f->res.recording = f->recording;
    f->res.access_path = f->access_path;
    f->res.kernel_path = f->kernel_path;
    f->res.content = f->content;
    f->res.zcache_spec = f->zspec;
    f->res.page_size = zc_session_page_size(f->s);
    f->res.read_ahead_known =
        zc_session_read_ahead(f->s, &f->res.read_ahead_kb, &from) == 1;
    f->res.read_ahead_from = from;
    f->res.capacities = f->caps;
    f->res.ncapacities = f->ncaps;
    return 0;
}

int zc_fidelity_open(const char *recording, const zc_fidelity_options *opt,
                     zc_fidelity **out, char *err, size_t errlen)
{
    static const zc_fidelity_options none;
    zc_fidelity *f;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out || !recording)
        return -ZC_EINVAL;
    *out = NULL;
    if (!(f = calloc(1, sizeof(*f))))
        return -ZC_ENOMEM;
    if (!opt)
        opt = &none;
    if (!(f->recording = strdup(recording)))
        rc = set_error(f, -ZC_ENOMEM, "out of memory");
    else if (!(rc = take_options(f, opt)) &&
             !(rc = recording_paths(f, recording)) &&
             !(rc = open_access(f, opt)) && !(rc = take_zcache_spec(f)) &&
             !(rc = open_kernel(f)) && !(rc = make_rows(f)))
        rc = fill_header(f);
    if (rc) {
        if (err && errlen)
            snprintf(err, errlen, "%s", f->err[0] ? f->err : zc_strerror(rc));
        zc_fidelity_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

const zc_fidelity_result *zc_fidelity_get(const zc_fidelity *f)
{
    return f ? &f->res : NULL;
}

const char *zc_fidelity_error(const zc_fidelity *f)
{
    return f ? f->err : "";
}

void zc_fidelity_free(zc_fidelity *f)
{
    if (f) {
        char *strings[] = {f->recording, f->access_path, f->kernel_path,
                           f->content, f->zspec};
        zc__fidelity_release(f);
        for (size_t i = 0; i < sizeof(strings) / sizeof(*strings); i++)
            free(strings[i]);
        free(f->models);
        free(f->caps);
        free(f->rows);
        free(f->points);
        free(f);
    }
}

/* The streams, the counts, the matcher and the memo are not needed after
 * the work. */
void zc__fidelity_release(zc_fidelity *f)
{
    zc_session_close(f->s);
    zc_ops_close(f->kin);
    zc_ops_close(f->kev);
    zc__match_free(f->match);
    zc_memo_destroy(f->memo);
    free(f->seen);
    free(f->devs);
    f->s = NULL;
    f->kin = f->kev = NULL;
    f->match = NULL;
    f->memo = NULL;
    f->seen = NULL;
    f->devs = NULL;
    f->nseen = f->seen_cap = f->ndevs = 0;
}
