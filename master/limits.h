/*  limits.h - per-key limits, a first step toward queues: the cores the
    applications and cluster-mode drivers of one CURVE key may hold
    together.  --max-cores-per-key N is every key's limit (0: none), and
    --key-limits FILE overrides it key by key; the file is read again on
    SIGHUP (limits_reload), and a file that cannot be read or parsed
    leaves the limits in force as they were.

    The file has one line per key, `WHO CORES`: WHO is a public key (Z85,
    as `hearth-keygen --public` prints it) or the name of its key file in
    an allow directory (`alice.key`, or `alice`), CORES a number (0: no
    limit for that key).  `#` starts a comment; blank lines are skipped.

    For one scheduling pass, limits_pass_new() turns the limits into the
    allocator's groups (alloc.h: one per key that has a limit, with the
    cores its live applications and placed drivers hold now), and
    limits_key_text() says how a key's limit holds one back (waiting.h
    gives it to the application or driver).  Without CURVE (zap NULL) no
    record has a key, and nothing is limited.

    limits_t is the master's (main.c creates it); a pass is the caller's,
    on its stack, cleared with limits_pass_clear(). */
#ifndef HEARTH_MASTER_LIMITS_H
#define HEARTH_MASTER_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/alloc.h"
#include "libcore/error.h"
#include "libcore/zap.h"
#include "master/registry.h"

typedef struct limits limits_t;

/* Every key's limit (0: none) and the overrides file (NULL: none; read
   now).  NULL with err (a file that cannot be read or parsed). */
limits_t *limits_new (int64_t default_cores, const char *path,
                      hearth_error_t *err);

/* Free the limits.  Accepts NULL and a NULL *self_p; nulls *self_p;
   keeps errno. */
void limits_destroy (limits_t **self_p);

/* Read the overrides file again (SIGHUP; libcore/keymap.h).  Returns
   the number of keys it names (0 without a file), or -1 with err: the
   previous limits stay. */
int limits_reload (limits_t *self, hearth_error_t *err);

/* True when some key may have a limit (a default, or a file). */
bool limits_any (const limits_t *self);

/* The limit of key (Z85) admitted by the key file name (may be NULL):
   its override, else the default; 0: none. */
int limits_of (const limits_t *self, const char *key, const char *name);

/* The allocator's groups of one pass. */
typedef struct {
    hearth_alloc_group_t *groups; /* owned: one per limited key */
    const char **keys;            /* owned array: their keys (borrowed from
                                     the records) */
    size_t ngroups;               /* entries in both */
} limits_pass_t;

/* Groups for the apps[] and drivers[] of a pass (arec[] and drec[] are
   their records, same index): sets each one's group (NULL: no limit),
   with cores_used what the key's active applications and placed drivers
   of reg hold now.  pass is zeroed first.  0, or -1 on no memory. */
int limits_pass_new (limits_pass_t *pass, const limits_t *self,
                     hearth_zap_t *zap, registry_t *reg, reg_app_t *const *arec,
                     hearth_alloc_app_t *apps, size_t napps,
                     reg_driver_t *const *drec, hearth_alloc_driver_t *drivers,
                     size_t ndrivers);

/* After the passes were applied to reg: the groups' cores_used become
   what the keys hold now (what the passes granted included). */
void limits_pass_recount (limits_pass_t *pass, registry_t *reg);

/* "its key carol.key (f=)7QxS80?BX...) holds 1 of its 1 cores
   (--max-cores-per-key, --key-limits)": the limit of g, the group of
   the key owner (Z85), into buf (cut to size). */
void limits_key_text (hearth_zap_t *zap, const char *owner,
                      const hearth_alloc_group_t *g, char *buf, size_t size);

/* Free what the pass owns and zero it. */
void limits_pass_clear (limits_pass_t *pass);

#endif
