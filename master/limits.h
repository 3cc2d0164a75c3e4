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
    limits_pass_report() gives each application its key's limit held back
    its message (registry_app_set_waiting).  Without CURVE (zap NULL) no
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

/* Why no live worker of reg can ever take one executor of app: "each
   executor asks for 2 gpu; the most any live worker has is 1", into
   buf; false (buf "") when some live worker offers enough of every
   name it asks for. */
bool limits_resource_why (registry_t *reg, const reg_app_t *app, char *buf,
                          size_t size);

/* After the pass was applied to reg: the groups' cores_used become what
   the keys hold now, and each application whose executors ask for custom
   resources no live worker has enough of waits with a message saying so
   (limits_resource_why), else one whose capped[i] is set (NULL:
   none) with a message naming its key and limit, the others with none;
   a new message is logged. */
void limits_pass_report (limits_pass_t *pass, hearth_zap_t *zap,
                         registry_t *reg, reg_app_t *const *arec,
                         const hearth_alloc_app_t *apps, size_t napps,
                         const bool *capped);

/* Free what the pass owns and zero it. */
void limits_pass_clear (limits_pass_t *pass);

#endif
