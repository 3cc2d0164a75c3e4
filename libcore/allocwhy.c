/*  allocwhy.c - why a request waits: its code, and whether any live
    worker could ever hold it; see allocwhy.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/allocwhy.h"

static const char *const s_names[HEARTH_WAIT_NCODES] = {
    [HEARTH_WAIT_NONE] = NULL,
    [HEARTH_WAIT_NO_WORKER] = "no_worker",
    [HEARTH_WAIT_TOO_MANY_CORES] = "too_many_cores",
    [HEARTH_WAIT_TOO_MUCH_MEMORY] = "too_much_memory",
    [HEARTH_WAIT_RESOURCE_MISSING] = "resource_missing",
    [HEARTH_WAIT_NO_WORKER_FITS] = "no_worker_fits",
    [HEARTH_WAIT_KEY_LIMIT] = "key_limit",
    [HEARTH_WAIT_CLUSTER_FULL] = "cluster_full",
    [HEARTH_WAIT_LABELS_MISSING] = "labels_missing",
};

const char *
hearth_wait_code_name (hearth_wait_code_t code)
{
    return (unsigned) code < HEARTH_WAIT_NCODES ? s_names[code] : NULL;
}

bool
hearth_wait_never (hearth_wait_code_t code)
{
    return (code >= HEARTH_WAIT_NO_WORKER && code <= HEARTH_WAIT_NO_WORKER_FITS)
           || code == HEARTH_WAIT_LABELS_MISSING;
}

/* The addresses of name that w has. */
static int
s_count (const hearth_alloc_worker_t *w, const char *name)
{
    for (size_t j = 0; j < w->nresources; j++)
        if (strcmp (w->resources[j].name, name) == 0)
            return w->resources[j].count;
    return 0;
}

/* Whether w has every amount need asks for. */
static bool
s_has_all (const hearth_alloc_worker_t *w, const hearth_alloc_need_t *need)
{
    for (size_t i = 0; i < need->nresources; i++)
        if (need->resources[i].count > 0
            && s_count (w, need->resources[i].name) < need->resources[i].count)
            return false;
    return true;
}

/* The first name of need that no worker has enough of, with the most
   one has, into fit; false when each is met somewhere. */
static bool
s_short_resource (const hearth_alloc_need_t *need,
                  const hearth_alloc_worker_t *workers, size_t n,
                  hearth_alloc_fit_t *fit)
{
    for (size_t i = 0; i < need->nresources; i++) {
        int most = 0;
        for (size_t k = 0; k < n; k++) {
            int have = s_count (&workers[k], need->resources[i].name);
            most = have > most ? have : most;
        }
        if (most < need->resources[i].count) {
            fit->resource = i;
            fit->most_resource = most;
            return true;
        }
    }
    return false;
}

void
hearth_alloc_fit (const hearth_alloc_need_t *need,
                  const hearth_alloc_worker_t *workers, size_t n,
                  hearth_alloc_fit_t *fit)
{
    bool sized = false, stocked = false, whole = false;
    memset (fit, 0, sizeof *fit);
    fit->resource = need->nresources;
    for (size_t k = 0; k < n; k++) {
        const hearth_alloc_worker_t *w = &workers[k];
        if (w->cores_free > fit->most_cores)
            fit->most_cores = w->cores_free;
        if (w->memory_free_mb > fit->most_memory_mb)
            fit->most_memory_mb = w->memory_free_mb;
        bool cm = w->cores_free >= need->cores
                  && w->memory_free_mb >= need->memory_mb;
        bool res = s_has_all (w, need);
        sized |= cm;
        stocked |= res;
        whole |= cm && res;
    }
    if (n == 0)
        fit->code = HEARTH_WAIT_NO_WORKER;
    else if (fit->most_cores < need->cores)
        fit->code = HEARTH_WAIT_TOO_MANY_CORES;
    else if (fit->most_memory_mb < need->memory_mb)
        fit->code = HEARTH_WAIT_TOO_MUCH_MEMORY;
    else if (s_short_resource (need, workers, n, fit))
        fit->code = HEARTH_WAIT_RESOURCE_MISSING;
    else if (!sized)
        fit->code = HEARTH_WAIT_NO_WORKER_FITS;
    else if (!stocked)
        fit->code = HEARTH_WAIT_RESOURCE_MISSING; /* fit->resource: all */
    else if (!whole)
        fit->code = HEARTH_WAIT_NO_WORKER_FITS;
}

void
hearth_alloc_memory_text (int64_t mb, char *buf, size_t size)
{
    if (mb >= 1024 && mb % 1024 == 0)
        snprintf (buf, size, "%lld GiB", (long long) (mb / 1024));
    else if (mb >= 1024)
        snprintf (buf, size, "%.1f GiB", (double) mb / 1024.0);
    else
        snprintf (buf, size, "%lld MiB", (long long) mb);
}

/* ", 1 gpu", " and 1 fpga": the amounts of need, appended at buf + n;
   returns the new length (at most size). */
static size_t
s_amounts (const hearth_alloc_need_t *need, bool more_before, char *buf,
           size_t n, size_t size)
{
    for (size_t i = 0; i < need->nresources && n < size; i++) {
        bool first = i == 0 && !more_before;
        bool last = i + 1 == need->nresources;
        int k = snprintf (buf + n, size - n, "%s%d %s",
                          first ? " " : (last ? " and " : ", "),
                          need->resources[i].count, need->resources[i].name);
        n = k > 0 && (size_t) k < size - n ? n + (size_t) k : size;
    }
    return n;
}

/* RESOURCE_MISSING's sentence (the words of the first wave's). */
static void
s_resource_text (const hearth_alloc_need_t *need, const hearth_alloc_fit_t *fit,
                 char *buf, size_t size)
{
    if (fit->resource < need->nresources) {
        snprintf (buf, size,
                  "each executor asks for %d %s; the most any live worker "
                  "has is %d",
                  need->resources[fit->resource].count,
                  need->resources[fit->resource].name, fit->most_resource);
        return;
    }
    int k = snprintf (buf, size, "each executor asks for");
    size_t n = k > 0 && (size_t) k < size ? (size_t) k : size;
    n = s_amounts (need, false, buf, n, size);
    if (n < size)
        snprintf (buf + n, size - n, "; no live worker has all of them");
}

/* NO_WORKER_FITS's sentence. */
static void
s_fits_text (const hearth_alloc_need_t *need, const char *per, char *buf,
             size_t size)
{
    char mem[32];
    hearth_alloc_memory_text (need->memory_mb, mem, sizeof mem);
    if (need->nresources == 0) {
        snprintf (buf, size, "asks %d core%s and %s %s; no worker has both",
                  need->cores, need->cores == 1 ? "" : "s", mem, per);
        return;
    }
    int k = snprintf (buf, size, "asks %d core%s, %s", need->cores,
                      need->cores == 1 ? "" : "s", mem);
    size_t n = k > 0 && (size_t) k < size ? (size_t) k : size;
    n = s_amounts (need, true, buf, n, size);
    if (n < size)
        snprintf (buf + n, size - n, " %s; no worker has all of them", per);
}

void
hearth_alloc_fit_text (const hearth_alloc_need_t *need,
                       const hearth_alloc_fit_t *fit, const char *per,
                       char *buf, size_t size)
{
    char want[32], most[32];
    buf[0] = '\0';
    switch (fit->code) {
    case HEARTH_WAIT_NO_WORKER:
        snprintf (buf, size, "no worker is alive");
        break;
    case HEARTH_WAIT_TOO_MANY_CORES:
        snprintf (buf, size, "asks %d core%s %s; the most any worker has is %d",
                  need->cores, need->cores == 1 ? "" : "s", per,
                  fit->most_cores);
        break;
    case HEARTH_WAIT_TOO_MUCH_MEMORY:
        hearth_alloc_memory_text (need->memory_mb, want, sizeof want);
        hearth_alloc_memory_text (fit->most_memory_mb, most, sizeof most);
        snprintf (buf, size, "asks %s %s; the largest worker offers %s", want,
                  per, most);
        break;
    case HEARTH_WAIT_RESOURCE_MISSING:
        s_resource_text (need, fit, buf, size);
        break;
    case HEARTH_WAIT_NO_WORKER_FITS:
        s_fits_text (need, per, buf, size);
        break;
    default:
        break;
    }
}
