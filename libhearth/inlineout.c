/*  inlineout.c - small map outputs of a stage read whole, kept by the
    driver; see inlineout.h. */
#include "config.h"

#include <string.h>

#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

void
inlineout_reserve (hearth_stage_t *st, uint64_t *left)
{
    st->inline_max = 0;
    st->inline_reserved = 0;
    /* sorted outputs are merged by key from files: never kept */
    if (!st->read_whole || st->sort || st->ntasks == 0)
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
           with its user long after (until hearth_job_destroy) */
        for (uint64_t m = 0; st->maps && m < st->ntasks; m++)
            inlineout_drop (st, m);
        *left += st->inline_reserved;
        st->inline_reserved = 0;
        st->inline_max = 0;
        zframe_destroy (&st->inline_cache);
    }
}

bool
inlineout_acceptable (const hearth_stage_t *st, zframe_t *block)
{
    return !block
           || (st->inline_max > 0 && zframe_size (block) > 0
               && zframe_size (block) <= st->inline_max);
}

int
inlineout_keep (hearth_stage_t *st, uint64_t index, uint32_t attempt,
                zframe_t *block)
{
    zframe_t *copy = zframe_dup (block);
    uint64_t *sizes = malloc (sizeof *sizes);
    if (!copy || !sizes) {
        zframe_destroy (&copy);
        free (sizes);
        return -1;
    }
    sizes[0] = zframe_size (block);
    inlineout_drop (st, index);
    st->maps[index] = (mapout_t){sizes, SHUFFLE_KEPT, attempt, copy, 0};
    st->inline_stale = true; /* the cache lacks this block */
    return 0;
}

/* Whether map output m of st is kept (its bytes in its block or the
   cache). */
static bool
s_kept (const hearth_stage_t *st, uint64_t m)
{
    return st->maps[m].sizes && st->maps[m].server == SHUFFLE_KEPT;
}

void
inlineout_drop (hearth_stage_t *st, uint64_t index)
{
    mapout_t *mo = &st->maps[index];
    if (s_kept (st, index))
        st->inline_stale = true; /* the cache holds this block */
    zframe_destroy (&mo->block);
    free (mo->sizes);
    mo->sizes = NULL;
}

zframe_t *
inlineout_frame (hearth_stage_t *in, bool *failed)
{
    *failed = false;
    if (!in->inline_max || (in->inline_cache && !in->inline_stale))
        return in->inline_cache;
    size_t total = 0;
    for (uint64_t m = 0; m < in->ntasks; m++)
        if (s_kept (in, m))
            total += (size_t) in->maps[m].sizes[0];
    zframe_t *f = total ? zframe_new (NULL, total) : NULL;
    if (total && !f) {
        *failed = true;
        return NULL;
    }
    /* each block into the new frame, from its own or the old frame: the
       driver holds it once again */
    unsigned char *p = f ? zframe_data (f) : NULL;
    const unsigned char *old =
        in->inline_cache ? zframe_data (in->inline_cache) : NULL;
    for (uint64_t m = 0; f && m < in->ntasks; m++) {
        mapout_t *mo = &in->maps[m];
        if (!s_kept (in, m))
            continue;
        memcpy (p, mo->block ? zframe_data (mo->block) : old + mo->kept_at,
                (size_t) mo->sizes[0]);
        mo->kept_at = (uint64_t) (p - zframe_data (f));
        p += mo->sizes[0];
        zframe_destroy (&mo->block);
    }
    zframe_destroy (&in->inline_cache);
    in->inline_cache = f;
    in->inline_stale = false;
    return f;
}
