/*
 * fidelity_report.c - zcache-fidelity's outputs of a fidelity run (the
 * library's zc_fidelity_result): the text tables, the JSON, the plot.
 * See fidelity_report.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fidelity_report.h"

#include "cli.h"
#include "outfile.h"
#include "plot.h"

/* ---- text and JSON ----------------------------------------------------- */

/* A size as the options spell it: 256K, 1M, 3G, or bytes. */
static const char *size_str(uint64_t b, char *buf, size_t len)
{
    static const char units[] = "GMK";

    for (int u = 0; u < 3; u++) {
        uint64_t unit = 1ull << (10 * (3 - u));
        if (b >= unit && b % unit == 0) {
            snprintf(buf, len, "%" PRIu64 "%c", b / unit, units[u]);
            return buf;
        }
    }
    snprintf(buf, len, "%" PRIu64, b);
    return buf;
}

/* (model - kernel) / kernel in %, or what stands for it. */
static const char *diff_str(uint64_t model, uint64_t kernel, char *buf,
                            size_t len)
{
    if (!kernel)
        snprintf(buf, len, "%s", model ? "n/a" : "+0.0%");
    else
        snprintf(buf, len, "%+.1f%%",
                 100.0 * ((double)model - (double)kernel) / (double)kernel);
    return buf;
}

static void json_row(FILE *out, const zc_fidelity_result *res,
                     const zc_fidelity_row *r)
{
    fprintf(out, "{\"recording\":");
    out_json_string(out, res->access_path);
    fprintf(out, ",\"content\":");
    out_json_string(out, res->content);
    fprintf(out, ",\"zcache_spec\":");
    out_json_string(out, res->zcache_spec);
    fprintf(out, ",\"model\":\"%s\",\"size_mode\":\"%s\"", r->model,
            zc_fidelity_size_name(r->size));
    if (r->size == ZC_FIDELITY_SIZE_MEDIAN)
        fprintf(out, ",\"capacity_pages\":%" PRIu64, r->capacity_pages);
    else
        fprintf(out, ",\"capacity_pages\":null");
    fprintf(out,
            ",\"window\":%" PRIu64 ",\"kernel_gets\":%" PRIu64
            ",\"model_gets\":%" PRIu64 ",\"kernel_puts\":%" PRIu64
            ",\"model_puts\":%" PRIu64,
            res->window, res->kernel_gets, r->gets, res->kernel_puts, r->puts);
    if (r->overlap >= 0)
        fprintf(out, ",\"evicted_overlap\":%.6f", r->overlap);
    else
        fprintf(out, ",\"evicted_overlap\":null");
    fprintf(out,
            ",\"evicted_matched\":%" PRIu64 ",\"kernel_meta_gets\":%" PRIu64
            ",\"kernel_meta_puts\":%" PRIu64 ",\"model_readahead\":%" PRIu64
            ",\"model_synthetic\":%" PRIu64 ",\"read_ahead_kb\":",
            r->matched, res->kernel_meta_gets, res->kernel_meta_puts,
            r->readahead, r->synthetic);
    if (res->read_ahead_known)
        fprintf(out, "%" PRIu64, res->read_ahead_kb);
    else
        fprintf(out, "null");
    fprintf(out, ",\"resident_samples\":%zu,\"curve\":[", res->samples);
    for (size_t c = 0; c < res->ncapacities; c++) {
        const zc_fidelity_point *p = &r->curve[c];
        fprintf(out,
                "%s{\"capacity_bytes\":%" PRIu64 ",\"kernel_zc_hits\":%" PRIu64
                ",\"model_zc_hits\":%" PRIu64 ",\"kernel_zc_gets\":%" PRIu64
                ",\"model_zc_gets\":%" PRIu64 "}",
                c ? "," : "", p->capacity_bytes, p->kernel_zc_hits,
                p->model_zc_hits, p->kernel_zc_gets, p->model_zc_gets);
    }
    fprintf(out, "]}");
}

void fidelity_json(FILE *out, const zc_fidelity_result *res)
{
    fputc('[', out);
    for (size_t i = 0; i < res->nrows; i++) {
        fprintf(out, "%s\n", i ? "," : "");
        json_row(out, res, &res->rows[i]);
    }
    fprintf(out, "\n]\n");
}

static void text_header(FILE *out, const zc_fidelity_result *res)
{
    static const char *const from[][2] = {{"option", "--read-ahead-kb"},
                                          {"header", "the stream's header"},
                                          {"default", "the library's default"}};
    const char *ra_from = res->read_ahead_from;

    for (size_t i = 0; i < sizeof(from) / sizeof(*from); i++)
        if (!strcmp(ra_from, from[i][0]))
            ra_from = from[i][1];
    fprintf(out, "recording:   %s\n", res->recording);
    fprintf(out,
            "  access stream  %s: %" PRIu64 " requests, %" PRIu64
            " page accesses\n",
            res->access_path, res->requests, res->accesses);
    fprintf(out,
            "  kernel stream  %s: pool 0 (the file system) %" PRIu64
            " gets, %" PRIu64 " puts\n",
            res->kernel_path, res->kernel_gets, res->kernel_puts);
    fprintf(out,
            "  resident       %zu samples: first %" PRIu64 ", median %" PRIu64
            " pages (over the requests)\n",
            res->samples, res->first_sample, res->median_sample);
    fprintf(out, "  contents       %s; zcache %s\n", res->content,
            *res->zcache_spec ? res->zcache_spec : "(the library's defaults)");
    if (res->read_ahead_known)
        fprintf(out, "  read_ahead_kb  %" PRIu64 " (%s)\n", res->read_ahead_kb,
                ra_from);
    else
        fprintf(out, "  read_ahead_kb  %s\n", ra_from);
}

static void text_measures(FILE *out, const zc_fidelity_result *res)
{
    char b[4][32];

    fprintf(out, "\n%-8s %-6s %8s %11s %11s %8s %11s %11s %8s %8s\n", "model",
            "size", "pages", "kernel_gets", "model_gets", "diff", "kernel_puts",
            "model_puts", "diff", "overlap");
    for (size_t i = 0; i < res->nrows; i++) {
        const zc_fidelity_row *r = &res->rows[i];
        if (r->size == ZC_FIDELITY_SIZE_MEDIAN)
            snprintf(b[0], sizeof(b[0]), "%" PRIu64, r->capacity_pages);
        else
            snprintf(b[0], sizeof(b[0]), "kernel");
        if (r->overlap >= 0)
            snprintf(b[3], sizeof(b[3]), "%.1f%%", 100.0 * r->overlap);
        else
            snprintf(b[3], sizeof(b[3]), "n/a");
        fprintf(out,
                "%-8s %-6s %8s %11" PRIu64 " %11" PRIu64 " %8s %11" PRIu64
                " %11" PRIu64 " %8s %8s\n",
                r->model, zc_fidelity_size_name(r->size), b[0],
                res->kernel_gets, r->gets,
                diff_str(r->gets, res->kernel_gets, b[1], sizeof(b[1])),
                res->kernel_puts, r->puts,
                diff_str(r->puts, res->kernel_puts, b[2], sizeof(b[2])), b[3]);
    }
    fprintf(out,
            "\npages: the model's page-cache capacity (kernel: it follows "
            "the kernel's\nresident count).  overlap: the share of the "
            "kernel's %" PRIu64 " evictions that\nthe model also makes, the "
            "same page within W = %" PRIu64
            " evictions of the same\nplace once the two eviction orders are "
            "aligned (evictions only one side\nmakes are skipped).  Not "
            "counted above: the kernel's other pools\n(the block device's "
            "page cache: ext4 metadata, which the access stream\ncannot "
            "see): %" PRIu64 " gets, %" PRIu64 " puts.\n",
            res->kernel_puts, res->window, res->kernel_meta_gets,
            res->kernel_meta_puts);
}

/* One row per capacity: the kernel's zcache hits, then each model's and
 * its difference.  (The gets do not change with the capacity: they are
 * the first table's; the JSON has them per point.) */
static void text_curve(FILE *out, const zc_fidelity_result *res)
{
    char b[2][48], col[96];

    if (!res->ncapacities)
        return;
    fprintf(out,
            "\nzcache hits behind the kernel's page cache and behind "
            "each model:\n%-9s %10s",
            "capacity", "kernel");
    for (size_t i = 0; i < res->nrows; i++) {
        snprintf(col, sizeof(col), "%s/%s", res->rows[i].model,
                 zc_fidelity_size_name(res->rows[i].size));
        fprintf(out, " %18s", col);
    }
    fputc('\n', out);
    for (size_t c = 0; c < res->ncapacities; c++) {
        uint64_t kernel = res->nrows ? res->rows[0].curve[c].kernel_zc_hits : 0;
        fprintf(out, "%-9s %10" PRIu64,
                size_str(res->capacities[c], b[0], sizeof(b[0])), kernel);
        for (size_t i = 0; i < res->nrows; i++) {
            uint64_t hits = res->rows[i].curve[c].model_zc_hits;
            snprintf(col, sizeof(col), "%" PRIu64 " %s", hits,
                     diff_str(hits, kernel, b[1], sizeof(b[1])));
            fprintf(out, " %18s", col);
        }
        fputc('\n', out);
    }
}

void fidelity_text(FILE *out, const zc_fidelity_result *res)
{
    text_header(out, res);
    text_measures(out, res);
    text_curve(out, res);
}

/* ---- plots -------------------------------------------------------------- */

/* A series' colour: one hue per model (a palette by the model's place in
 * --model), dark at the kernel's size, light at the median. */
static const char *series_colour(size_t model_index, zc_fidelity_size size)
{
    static const char *const dark[] = {"#1f5fa0", "#c0282d", "#2a8a3a",
                                       "#8a4fb0", "#b06a00"};
    static const char *const light[] = {"#8fb8e0", "#f0908f", "#93d09c",
                                        "#c9a6e0", "#f0b860"};
    size_t k = model_index % (sizeof(dark) / sizeof(*dark));

    return size == ZC_FIDELITY_SIZE_KERNEL ? dark[k] : light[k];
}

/* PREFIX.dat: the capacity in MiB, the kernel's zcache hits, each row's. */
static void plot_data(FILE *f, const zc_fidelity_result *res)
{
    fprintf(f, "# zcache hits against zcache capacity: the kernel stream "
               "(pool 0), and each model at each size\n"
               "# capacity_mib kernel_stream");
    for (size_t i = 0; i < res->nrows; i++)
        fprintf(f, " %s@%s_size", res->rows[i].model,
                zc_fidelity_size_name(res->rows[i].size));
    fputc('\n', f);
    for (size_t c = 0; c < res->ncapacities; c++) {
        fprintf(f, "%.4f %" PRIu64, (double)res->capacities[c] / 1048576.0,
                res->nrows ? res->rows[0].curve[c].kernel_zc_hits : 0);
        for (size_t i = 0; i < res->nrows; i++)
            fprintf(f, " %" PRIu64, res->rows[i].curve[c].model_zc_hits);
        fputc('\n', f);
    }
}

/* One terminal's title and plot command: the kernel's series, then each
 * row's, a hue per model (m: the row's model's place among the rows'). */
static void plot_series(FILE *f, const char *title, const char *data,
                        const zc_fidelity_result *res)
{
    fprintf(f,
            "set title '%s: zcache hits behind the kernel and behind "
            "each model'\n"
            "plot '%s' using 1:2 with linespoints lw 3 pt 5 lc rgb "
            "'black' title 'kernel stream'",
            title, data);
    for (size_t i = 0, m = 0; i < res->nrows; i++) {
        const zc_fidelity_row *r = &res->rows[i];
        m += i && strcmp(r->model, res->rows[i - 1].model);
        fprintf(f,
                ", '' using 1:%zu with linespoints lw 2 pt %d lc rgb "
                "'%s' title '%s, %s size'",
                i + 3, r->size == ZC_FIDELITY_SIZE_KERNEL ? 7 : 6,
                series_colour(m, r->size), r->model,
                zc_fidelity_size_name(r->size));
    }
    fputc('\n', f);
}

/* PREFIX.gp's plot commands, on each terminal. */
static void plot_script(FILE *f, const char *prefix, const char *data,
                        const zc_fidelity_result *res)
{
    char title[256];

    /* the recording's name in a quoted gnuplot string */
    plot_text(title, sizeof(title), res->recording);
    fprintf(f, "set key top left inside box opaque\nset grid\n"
               "set logscale x 2\nset xlabel 'zcache capacity (MiB)'\n"
               "set ylabel 'zcache hits (disk reads avoided)'\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, prefix, t);
        plot_series(f, title, data, res);
    }
}

void fidelity_plot(const char *prog, const char *prefix,
                   const zc_fidelity_result *res)
{
    char path[2][1100];
    outfile of[2] = {{0}};
    int bad = 0, err;
    FILE *f;

    if (snprintf(path[0], sizeof(path[0]), "%s.dat", prefix) >=
            (int)sizeof(path[0]) ||
        snprintf(path[1], sizeof(path[1]), "%s.gp", prefix) >=
            (int)sizeof(path[1]))
        die(2, "--plot %s: the name is too long", prefix);
    if (!(f = outfile_open(&of[0], path[0])))
        goto fail;
    plot_data(f, res);
    if (outfile_close(&of[0]))
        goto fail;
    bad = 1;
    if (!(f = outfile_open(&of[1], path[1])))
        goto fail;
    plot_header(f, prog, prefix, path[0]);
    plot_script(f, prefix, path[0], res);
    if (outfile_close(&of[1]))
        goto fail;
    plot_run(prog, prefix);
    return;
fail:
    err = errno;
    outfile_discard(&of[0]);
    outfile_discard(&of[1]);
    die(1, "cannot write %s: %s", path[bad], strerror(err));
}
