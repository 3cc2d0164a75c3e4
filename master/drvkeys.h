/*  drvkeys.h - a key of its own for each launch of a cluster-mode driver
    (docs/security.md, "Cluster-mode drivers").

    A driver that hearth-submit runs in cluster mode used to reach the
    master with a copy of its worker's key, which its user could read and
    use as the worker's.  Now, with CURVE keys, the master makes a key pair
    for every launch of a driver: the registry keeps the public half
    (d->key, journaled), the secret half travels to the worker inside
    LAUNCH_DRIVER (the master-worker link is CURVE-encrypted) and is not
    kept here.  The master's ZAP handler admits the public key with the
    role driver (HEARTH_ROLE_DRIVER, named after the driver's id) while
    that launch is placed on a worker, and forgets it when the launch ends
    or is replaced (RELAUNCHING): from then on its handshakes, and its
    messages on connections made before, are refused.  A restarted master,
    and a standby that takes over, admit again the keys of the drivers
    their journal says are placed.

    Without CURVE there are no keys: nothing is made, nothing admitted. */
#ifndef HEARTH_MASTER_DRVKEYS_H
#define HEARTH_MASTER_DRVKEYS_H

#include "master/master.h"
#include "master/registry.h"

/* A new key pair for a launch, Z85, into pub and secret (each at least
   HEARTH_KEY_TXT_LEN + 1 bytes); both "" without CURVE.  The caller
   wipes secret once sent.  0, or -1 (libzmq cannot make CURVE keys). */
int master_driver_key_new (master_t *m, char *pub, char *secret);

/* d (borrowed) changed: admit the key of its launch while it is placed,
   forget it once it is not.  Called for every change of a driver (the
   registry's observer, drivers.c). */
void master_driver_key_sync (master_t *m, const reg_driver_t *d);

/* After the registry was restored from the journal (which tells no
   observer): admit the keys of the drivers placed. */
void master_driver_keys_restored (master_t *m);

#endif
