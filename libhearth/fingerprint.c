/*  fingerprint.c - what a stage computes, as one hash; see fingerprint.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libhearth/fingerprint.h"

/* Bump when what is hashed changes: an older driver's records then
   never match (a stage runs again rather than reuse what another
   definition wrote). */
static const char s_version[] = "hearth-stage-1";

/* A string, its length first (NULL is told apart from ""). */
static void
s_str (zdigest_t *d, const char *s)
{
    char len[24];
    int n = snprintf (len, sizeof len, "%zd:", s ? (ssize_t) strlen (s) : -1);
    zdigest_update (d, (byte *) len, (size_t) n);
    if (s)
        zdigest_update (d, (byte *) s, strlen (s));
}

static void
s_num (zdigest_t *d, uint64_t v)
{
    char text[24];
    int n = snprintf (text, sizeof text, "%llu;", (unsigned long long) v);
    zdigest_update (d, (byte *) text, (size_t) n);
}

/* A NULL-terminated list (or NULL), its count first. */
static void
s_list (zdigest_t *d, char *const *list)
{
    size_t n = 0;
    while (list && list[n])
        n++;
    s_num (d, list ? n + 1 : 0);
    for (size_t i = 0; i < n; i++)
        s_str (d, list[i]);
}

static void
s_group (zdigest_t *d, const task_group_t *g)
{
    s_num (d, g->first);
    s_num (d, g->count);
    s_list (d, g->argv);
    s_list (d, g->env);
    s_str (d, g->fn);
    s_str (d, g->arg);
}

int
fingerprint_stage (hearth_stage_t *st, const char *files)
{
    zdigest_t *d = zdigest_new ();
    if (!d)
        return -1;
    s_str (d, s_version);
    s_str (d, st->name);
    s_num (d, st->ntasks);
    s_num (d, st->partitions);
    s_num (d, st->sort);
    s_str (d, st->output_dir);
    s_num (d, st->ngroups);
    for (size_t i = 0; i < st->ngroups; i++)
        s_group (d, &st->groups[i]);
    /* the inputs, in order, and which one is read as input */
    s_num (d, st->nparents);
    for (size_t i = 0; i < st->nparents; i++) {
        s_str (d, st->parents[i]->fp);
        s_num (d, st->parents[i] == st->input);
    }
    s_str (d, files ? files : "");
    snprintf (st->fp, sizeof st->fp, "%s", zdigest_string (d));
    /* zdigest_string is upper case; ours, like the files' hashes are
       compared, any case: kept lower for the logs */
    for (char *p = st->fp; *p; p++)
        if (*p >= 'A' && *p <= 'F')
            *p = (char) (*p - 'A' + 'a');
    zdigest_destroy (&d);
    return 0;
}

static int
s_cmp (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void
fingerprint_files (const char *const *items, size_t n, char *out)
{
    const char **sorted = n ? malloc (n * sizeof *sorted) : NULL;
    zdigest_t *d = zdigest_new ();
    out[0] = '\0';
    if (d && (sorted || !n)) {
        if (n)
            memcpy (sorted, items, n * sizeof *sorted);
        if (n)
            qsort (sorted, n, sizeof *sorted, s_cmp);
        s_num (d, n);
        for (size_t i = 0; i < n; i++)
            s_str (d, sorted[i]);
        snprintf (out, FINGERPRINT_LEN + 1, "%s", zdigest_string (d));
    }
    free (sorted);
    zdigest_destroy (&d);
}
