/*  limits.c - per-key core limits: the overrides file, and what they
    mean for one scheduling pass; see limits.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/keymap.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/units.h"
#include "master/limits.h"
#include "master/regdrivers.h"

/* Bounds of a limit, in cores. */
static const int64_t s_max_limit = 1000000;

struct limits {
    int default_cores;   /* --max-cores-per-key (0: none) */
    char *path;          /* --key-limits FILE, or NULL */
    zhashx_t *overrides; /* key or key file name -> int * (owned) */
};

/* A limit's text: the map's value (keymap.h). */
static void *
s_cores (const char *text, hearth_error_t *err)
{
    int64_t value;
    hearth_error_t perr;
    if (hearth_parse_int (text, 0, s_max_limit, &value, &perr) < 0) {
        hearth_errprintf (err,
                          "bad number of cores '%.20s' (0 to 1000000; 0: no "
                          "limit)",
                          text);
        return NULL;
    }
    int *stored = malloc (sizeof *stored);
    if (!stored)
        hearth_errprintf (err, "out of memory");
    else
        *stored = (int) value;
    return stored;
}

int
limits_reload (limits_t *self, hearth_error_t *err)
{
    if (!self->path)
        return 0;
    zhashx_t *map = hearth_keymap_read (self->path, "the key limits",
                                        "KEY CORES", s_cores, err);
    if (!map)
        return -1;
    zhashx_destroy (&self->overrides);
    self->overrides = map;
    log_info ("key limits: %zu keys in %s, %d cores for the others%s",
              zhashx_size (map), self->path, self->default_cores,
              self->default_cores ? "" : " (no limit)");
    return (int) zhashx_size (map);
}

limits_t *
limits_new (int64_t default_cores, const char *path, hearth_error_t *err)
{
    limits_t *self = calloc (1, sizeof *self);
    if (!self || (path && !(self->path = strdup (path)))) {
        hearth_errprintf (err, "out of memory");
        limits_destroy (&self);
        return NULL;
    }
    self->default_cores = (int) default_cores;
    if (limits_reload (self, err) < 0) {
        limits_destroy (&self);
        return NULL;
    }
    return self;
}

void
limits_destroy (limits_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->overrides);
    free ((*self_p)->path);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

bool
limits_any (const limits_t *self)
{
    return self->default_cores > 0
           || (self->overrides && zhashx_size (self->overrides) > 0);
}

int
limits_of (const limits_t *self, const char *key, const char *name)
{
    const int *v = hearth_keymap_lookup (self->overrides, key, name);
    return v ? *v : self->default_cores;
}

/* --- one pass ----------------------------------------------------------- */

/* The group of key in the pass, made on first sight; NULL when key has
   no limit. */
static hearth_alloc_group_t *
s_group (limits_pass_t *pass, zhashx_t *index, const limits_t *self,
         hearth_zap_t *zap, const char *key)
{
    if (!key[0])
        return NULL;
    uintptr_t i = (uintptr_t) zhashx_lookup (index, key);
    if (i)
        return &pass->groups[i - 1];
    int limit = limits_of (self, key, hearth_zap_name (zap, key));
    if (limit <= 0)
        return NULL;
    pass->groups[pass->ngroups] = (hearth_alloc_group_t){limit, 0};
    pass->keys[pass->ngroups] = key;
    zhashx_insert (index, key, (void *) (uintptr_t) ++pass->ngroups);
    return &pass->groups[pass->ngroups - 1];
}

/* What each group's key holds now: its active applications' cores and
   its placed drivers'. */
static void
s_count_used (limits_pass_t *pass, zhashx_t *index, registry_t *reg)
{
    for (size_t g = 0; g < pass->ngroups; g++)
        pass->groups[g].cores_used = 0;
    zlistx_t *apps = registry_apps (reg);
    for (reg_app_t *a = zlistx_first (apps); a; a = zlistx_next (apps)) {
        uintptr_t i =
            a->owner[0] ? (uintptr_t) zhashx_lookup (index, a->owner) : 0;
        if (i)
            pass->groups[i - 1].cores_used += a->cores_granted;
    }
    zlistx_t *drivers = registry_drivers (reg);
    for (reg_driver_t *d = zlistx_first (drivers); d;
         d = zlistx_next (drivers)) {
        uintptr_t i = d->owner[0] && d->worker
                          ? (uintptr_t) zhashx_lookup (index, d->owner)
                          : 0;
        if (i)
            pass->groups[i - 1].cores_used += d->cores;
    }
}

/* An index of the pass's keys -> group number + 1; NULL on no memory. */
static zhashx_t *
s_index (const limits_pass_t *pass)
{
    zhashx_t *index = zhashx_new ();
    for (size_t g = 0; index && g < pass->ngroups; g++)
        zhashx_insert (index, pass->keys[g], (void *) (uintptr_t) (g + 1));
    return index;
}

int
limits_pass_new (limits_pass_t *pass, const limits_t *self, hearth_zap_t *zap,
                 registry_t *reg, reg_app_t *const *arec,
                 hearth_alloc_app_t *apps, size_t napps,
                 reg_driver_t *const *drec, hearth_alloc_driver_t *drivers,
                 size_t ndrivers)
{
    memset (pass, 0, sizeof *pass);
    if (!zap || !self || !limits_any (self))
        return 0;
    size_t most = napps + ndrivers ? napps + ndrivers : 1;
    pass->groups = calloc (most, sizeof *pass->groups);
    pass->keys = calloc (most, sizeof *pass->keys);
    zhashx_t *index = zhashx_new ();
    if (!pass->groups || !pass->keys || !index) {
        zhashx_destroy (&index);
        limits_pass_clear (pass);
        return -1;
    }
    for (size_t i = 0; i < napps; i++)
        apps[i].group = s_group (pass, index, self, zap, arec[i]->owner);
    for (size_t i = 0; i < ndrivers; i++)
        drivers[i].group = s_group (pass, index, self, zap, drec[i]->owner);
    s_count_used (pass, index, reg);
    zhashx_destroy (&index);
    return 0;
}

void
limits_pass_recount (limits_pass_t *pass, registry_t *reg)
{
    zhashx_t *index = pass->ngroups ? s_index (pass) : NULL;
    if (index)
        s_count_used (pass, index, reg);
    zhashx_destroy (&index);
}

void
limits_key_text (hearth_zap_t *zap, const char *owner,
                 const hearth_alloc_group_t *g, char *buf, size_t size)
{
    const char *name = hearth_zap_name (zap, owner);
    snprintf (buf, size,
              "its key %s (%.12s...) holds %d of its %d cores "
              "(--max-cores-per-key, --key-limits)",
              name ? name : "(no longer admitted)", owner, g->cores_used,
              g->cores_limit);
}

void
limits_pass_clear (limits_pass_t *pass)
{
    free (pass->groups);
    free (pass->keys);
    memset (pass, 0, sizeof *pass);
}
