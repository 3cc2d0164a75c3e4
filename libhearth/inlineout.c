/*  inlineout.c - small map outputs of a stage read whole, kept by the
    driver; see inlineout.h. */
#include "config.h"

#include <string.h>

#include "libcore/partfmt.h"

#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

void
inlineout_reserve (hearth_stage_t *st, uint64_t *left)
{
    st->inline_max = 0;
    st->inline_reserved = 0;
    /* sorted outputs are merged by key from files: never kept; nor are
       those kept for later jobs: they outlive this one's budget */
    if (!st->read_whole || st->sort || st->ntasks == 0
        || stage_outlives_job (st))
        return;
    uint64_t share = *left / st->ntasks;
    if (share > INLINEOUT_STAGE_MAX)
        share = INLINEOUT_STAGE_MAX;
    if (share < INLINEOUT_MIN)
        return;
    st->inline_max = (uint32_t) share;
    st->inline_reserved = share * st->ntasks;
    *left -= st->inline_reserved;
}

void
inlineout_release (hearth_job_t *job, uint64_t *left)
{
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        /* the blocks go with their reservation: an ended job may stay
           with its user long after (until hearth_job_destroy); a table
           kept for later jobs stays (it holds no kept block) */
        if (!stage_outlives_job (st))
            inlineout_free (st);
        *left += st->inline_reserved;
        st->inline_reserved = 0;
        st->inline_max = 0;
    }
}

bool
inlineout_acceptable (const hearth_stage_t *st, size_t len)
{
    return st->inline_max > 0 && len < st->inline_max;
}

hearth_ts_state_t
inlineout_update_state (const hearth_stage_t *st, size_t len,
                        hearth_ts_state_t state, const char **error)
{
    if (state == HEARTH_TS_FINISHED && !inlineout_acceptable (st, len)) {
        *error = INLINEOUT_REFUSED;
        return HEARTH_TS_FAILED;
    }
    return state;
}

size_t
inlineout_bytes (const void *output, size_t len)
{
    return len == 0 || ((const char *) output)[len - 1] != '\n' ? len + 1 : len;
}

/* Whether map output m of st is kept (its bytes in kept_new or the
   cache). */
static bool
s_kept (const hearth_stage_t *st, uint64_t m)
{
    return st->maps[m].sizes && st->maps[m].server == SHUFFLE_KEPT;
}

bool
inlineout_all_kept (const hearth_stage_t *st)
{
    /* counted as they are kept and dropped: a reader's launch need not
       walk the stage's outputs (each reader of 400,000 did) */
    return st->maps && st->nkept == st->ntasks;
}

/* The kept outputs of st in task order into a new cache, from kept_new
   and the old cache; kept_new emptied, the framed copy dropped.  0, or
   -1 on no memory (nothing changed). */
static int
s_build (hearth_stage_t *st)
{
    size_t total = 0;
    for (uint64_t m = 0; m < st->ntasks; m++)
        if (s_kept (st, m))
            total += st->maps[m].kept_len;
    zframe_t *f = total ? zframe_new (NULL, total) : NULL;
    if (total && !f)
        return -1;
    unsigned char *p = f ? zframe_data (f) : NULL;
    const unsigned char *old =
        st->inline_cache ? zframe_data (st->inline_cache) : NULL;
    for (uint64_t m = 0; f && m < st->ntasks; m++) {
        mapout_t *mo = &st->maps[m];
        if (!s_kept (st, m))
            continue;
        memcpy (p, (mo->fresh ? st->kept_new : old) + mo->kept_at,
                mo->kept_len);
        mo->kept_at = (uint64_t) (p - zframe_data (f));
        mo->fresh = false;
        p += mo->kept_len;
    }
    zframe_destroy (&st->inline_cache);
    zframe_destroy (&st->inline_framed);
    st->inline_cache = f;
    st->inline_stale = false;
    free (st->kept_new); /* the driver holds each output once again */
    st->kept_new = NULL;
    st->kept_new_len = st->kept_new_cap = 0;
    return 0;
}

/* Room for len more bytes in st's kept_new.  0 or -1. */
static int
s_room (hearth_stage_t *st, size_t len)
{
    if (!st->kept_sizes
        && !(st->kept_sizes = calloc (st->ntasks, sizeof *st->kept_sizes)))
        return -1;
    /* dropped outputs leave holes: past the stage's reservation, the live
       ones move to the cache, so what the driver holds stays bounded */
    if (st->kept_new_len + len > st->inline_reserved && s_build (st) < 0)
        return -1;
    if (st->kept_new_len + len <= st->kept_new_cap)
        return 0;
    size_t need = st->kept_new_len + len;
    size_t cap = st->kept_new_cap ? st->kept_new_cap * 2 : 64 * 1024;
    while (cap < need)
        cap *= 2;
    /* not past the reservation (what is kept fits in it: each output,
       its newline added, is at most inline_max), nor 64 KiB for a stage
       that reserved less */
    if (cap > st->inline_reserved)
        cap = need > st->inline_reserved ? need : (size_t) st->inline_reserved;
    unsigned char *p = realloc (st->kept_new, cap);
    if (!p)
        return -1;
    st->kept_new = p;
    st->kept_new_cap = cap;
    return 0;
}

int
inlineout_keep (hearth_stage_t *st, uint64_t index, uint32_t attempt,
                const void *output, size_t len)
{
    size_t n = inlineout_bytes (output, len);
    inlineout_drop (st, index);
    if (s_room (st, n) < 0)
        return -1;
    unsigned char *p = st->kept_new + st->kept_new_len;
    if (len)
        memcpy (p, output, len);
    if (n > len) /* the rule of an output read whole (docs/jobs.md) */
        p[len] = '\n';
    st->kept_sizes[index] = hearth_frames_size (n);
    st->maps[index] = (mapout_t){.sizes = &st->kept_sizes[index],
                                 .server = SHUFFLE_KEPT,
                                 .attempt = attempt,
                                 .fresh = true,
                                 .kept_at = st->kept_new_len,
                                 .kept_len = (uint32_t) n};
    st->kept_new_len += n;
    st->nkept++;
    st->inline_stale = true; /* the cache lacks this output */
    return 0;
}

void
inlineout_drop (hearth_stage_t *st, uint64_t index)
{
    mapout_t *mo = &st->maps[index];
    if (s_kept (st, index)) {
        st->inline_stale = true; /* the cache holds this output */
        st->nkept--;
    }
    else
        free (mo->sizes); /* a kept one's are the stage's kept_sizes */
    mo->sizes = NULL;
}

void
inlineout_free (hearth_stage_t *st)
{
    for (uint64_t m = 0; st->maps && m < st->ntasks; m++)
        inlineout_drop (st, m);
    zframe_destroy (&st->inline_cache);
    zframe_destroy (&st->inline_framed);
    free (st->kept_new);
    st->kept_new = NULL;
    st->kept_new_len = st->kept_new_cap = 0;
    free (st->kept_sizes);
    st->kept_sizes = NULL;
}

zframe_t *
inlineout_input (hearth_stage_t *in, bool *failed)
{
    *failed = false;
    if (!in->inline_max || (in->inline_cache && !in->inline_stale))
        return in->inline_cache;
    if (s_build (in) < 0) {
        *failed = true;
        return NULL;
    }
    return in->inline_cache;
}

zframe_t *
inlineout_frame (hearth_stage_t *in, bool *failed)
{
    zframe_t *input = inlineout_input (in, failed);
    if (!input || in->inline_framed)
        return input ? in->inline_framed : NULL;
    size_t total = 0;
    for (uint64_t m = 0; m < in->ntasks; m++)
        if (s_kept (in, m))
            total += (size_t) in->maps[m].sizes[0];
    zframe_t *f = zframe_new (NULL, total);
    if (!f) {
        *failed = true;
        return NULL;
    }
    unsigned char *p = zframe_data (f);
    const unsigned char *from = zframe_data (input);
    for (uint64_t m = 0; m < in->ntasks; m++) {
        const mapout_t *mo = &in->maps[m];
        if (!s_kept (in, m))
            continue;
        hearth_frames_encode (from + mo->kept_at, mo->kept_len, p);
        p += mo->sizes[0];
    }
    in->inline_framed = f;
    return f;
}
