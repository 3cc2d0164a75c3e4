/*  drvkeys.c - a key of its own for each launch of a cluster-mode
    driver: made at launch, admitted while the launch is placed,
    forgotten after; see drvkeys.h. */
#include "config.h"

#include <string.h>

#include "libcore/log.h"
#include "libcore/zap.h"
#include "master/drvkeys.h"
#include "master/regdrivers.h"

int
master_driver_key_new (master_t *m, char *pub, char *secret)
{
    pub[0] = secret[0] = '\0';
    if (!m->curve.zap)
        return 0;
    if (zmq_curve_keypair (pub, secret) == 0)
        return 0;
    pub[0] = secret[0] = '\0';
    return -1;
}

void
master_driver_key_sync (master_t *m, const reg_driver_t *d)
{
    hearth_zap_t *zap = m->curve.zap;
    hearth_error_t err;
    if (!zap || !d->key[0])
        return;
    if (!d->worker) {
        if (hearth_zap_roles (zap, d->key) & HEARTH_ROLE_DRIVER)
            log_debug ("driver %s: the key of its launch %d (%.12s...) is "
                       "refused from now on",
                       d->id, d->launches, d->key);
        hearth_zap_forget_key (zap, d->key);
        return;
    }
    if (hearth_zap_roles (zap, d->key) & HEARTH_ROLE_DRIVER)
        return; /* admitted already */
    if (hearth_zap_admit_key (zap, d->key, d->id, HEARTH_ROLE_DRIVER, &err) < 0)
        log_error ("driver %s: cannot admit the key of its launch %d: %s",
                   d->id, d->launches, err.text);
}

void
master_driver_keys_restored (master_t *m)
{
    size_t n = 0;
    zlistx_t *drivers = registry_drivers (m->reg);
    for (reg_driver_t *d = zlistx_first (drivers); d; d = zlistx_next (drivers))
        if (m->curve.zap && d->worker && d->key[0]) {
            master_driver_key_sync (m, d);
            n++;
        }
    if (n)
        log_info ("the keys of %zu cluster-mode drivers placed are admitted "
                  "again",
                  n);
}
