/*  drvdir.h - what a worker writes into a cluster-mode driver's
    directory, WORK_DIR/DRIVER_ID: the files the driver was shipped, and,
    when the worker has keys, the key pair the master made for this launch
    of it (.driver.key_secret, never the worker's own key) and, for a
    driver run as another user than the worker's, a copy of the master's
    public key (.master.key).  The directory and its files belong to the
    driver's user, who may write there too: everything is made and written
    without following a link, files replaced are made anew (userfs.h). */
#ifndef HEARTH_WORKER_DRVDIR_H
#define HEARTH_WORKER_DRVDIR_H

#include <stddef.h>

#include "libcore/error.h"
#include "worker/children.h"
#include "worker/drivers.h"
#include "worker/runas.h"

/* The names of the key files in a driver's directory (reserved: no
   shipped file may have them, nor "stdout" and "stderr"). */
extern const char drvdir_key_file[];    /* its own key pair (secret) */
extern const char drvdir_master_copy[]; /* the master's public key */

/* Make the directory of l's driver (borrowed) in children's root, owned
   by u (the worker's when u is not switched: runas.h), its path into dir
   (size bytes), and write into it l's files and, with master_key (the
   master's public key file, absolute; NULL: the worker has no keys), the
   driver's own key pair (l->curve_secret, which must then be a secret
   key) and, for a driver run as u, a copy of master_key.  0, or -1 with
   err. */
int drvdir_prepare (children_t *children, const drivers_launch_t *l,
                    const runas_user_t *u, const char *master_key, char *dir,
                    size_t size, hearth_error_t *err);

#endif
