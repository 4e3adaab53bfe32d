/*
 * plot.c - gnuplot scripts written and run one way (see plot.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plot.h"

#include "outfile.h"

/* pngcairo: dash types and anti-aliasing that libgd's png lacks */
static const char *const terminals[PLOT_TERMINALS] = {"pngcairo", "svg"};
static const char *const extensions[PLOT_TERMINALS] = {"png", "svg"};

void plot_header(FILE *f, const char *prog, const char *prefix,
                 const char *data)
{
    fprintf(f, "# gnuplot %s.gp  (made by %s; data in %s)\n", prefix, prog,
            data);
}

void plot_terminal(FILE *f, const char *prefix, int i)
{
    /* noenhanced: a trace's name is text, not markup (_ ^ @ & { } ~) */
    fprintf(f, "set terminal %s noenhanced size 900,500\nset output '%s.%s'\n",
            terminals[i], prefix, extensions[i]);
}

void plot_text(char *out, size_t n, const char *s)
{
    const char *base = strrchr(s, '/');

    snprintf(out, n, "%s", base && base[1] ? base + 1 : s);
    for (char *p = out; *p; p++)
        if (*p == '\'' || *p == '\\' || *p == '\n' || *p == '\r')
            *p = '_';
}

void plot_traces_text(char *out, size_t n, const char *const *traces,
                      size_t ntraces)
{
    char more[32] = "";
    size_t len;

    if (!n)
        return;
    if (ntraces > 1)
        snprintf(more, sizeof(more), " + %zu more", ntraces - 1);
    plot_text(out, n, ntraces ? traces[0] : "");
    /* the count is kept whole: the name is cut to make room */
    len = strlen(out);
    if (len + strlen(more) >= n)
        len = n > strlen(more) ? n - 1 - strlen(more) : 0;
    snprintf(out + len, n - len, "%s", more);
}

const char *plot_prefix_error(const char *prefix)
{
    if (!*prefix)
        return "want a file name prefix";
    /* room for the longest name made from it (PREFIX-adaptive-NN.csv) in
     * the tools' 1024-byte paths */
    if (strlen(prefix) > PLOT_PREFIX_MAX)
        return "a prefix longer than " PLOT_STR(PLOT_PREFIX_MAX) " bytes";
    if (strpbrk(prefix, "'\n\r"))
        return "want a file name prefix without ' or line breaks (gnuplot "
               "reads it in quotes)";
    /* its directory, checked before any work */
    return outfile_dir_error(prefix);
}

void plot_run(const char *prog, const char *prefix)
{
    char cmd[1100];

    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr, "%s: gnuplot is not installed: %s.gp is ready for it\n",
                prog, prefix);
        return;
    }
    /* a name that begins with '-' is no option to gnuplot */
    if (snprintf(cmd, sizeof(cmd), "gnuplot '%s%s.gp'",
                 prefix[0] == '-' ? "./" : "", prefix) >= (int)sizeof(cmd) ||
        system(cmd) != 0)
        fprintf(stderr, "%s: gnuplot failed on %s.gp\n", prog, prefix);
    else
        fprintf(stderr, "%s: plots in %s.png and %s.svg\n", prog, prefix,
                prefix);
}
