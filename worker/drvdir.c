/*  drvdir.c - what a worker writes into a cluster-mode driver's
    directory: its files, its own key pair and the master's key; see
    drvdir.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/keys.h"
#include "worker/drvdir.h"
#include "worker/userfs.h"

/* Shipped files without a mode, and the program of a binary driver. */
static const mode_t s_file_mode = 0600, s_program_mode = 0700;
/* The longest text of a driver's key file. */
#define KEY_TEXT_MAX 512

const char drvdir_key_file[] = ".driver.key_secret";
const char drvdir_master_copy[] = ".master.key";
/* Names the worker writes itself in a driver's directory. */
static const char *const s_reserved[] = {"stdout", "stderr", drvdir_key_file,
                                         drvdir_master_copy, NULL};

/* Write the size bytes of data as dir/name (dir open: dir_fd), a new file
   of mode mode owned by owner (or the worker). */
static int
s_write_file (int dir_fd, const char *dir, const char *name, const void *data,
              size_t size, mode_t mode, const userfs_owner_t *owner,
              hearth_error_t *err)
{
    int fd = userfs_create (dir_fd, dir, name, false, mode, owner, err);
    if (fd < 0)
        return -1;
    int rc = hearth_write_all (fd, data, size);
    /* O_CREAT's mode passes the umask. */
    if (rc < 0 || fchmod (fd, mode) < 0) {
        int e = errno;
        close (fd);
        return hearth_errprintf (err, "cannot write %s/%s: %s", dir, name,
                                 strerror (e));
    }
    if (close (fd) < 0)
        return hearth_errprintf (err, "cannot write %s/%s: %s", dir, name,
                                 strerror (errno));
    return 0;
}

/* A copy of the (public) key file path as dir/name for a driver that
   runs as owner (it may not be able to read the worker's copy). */
static int
s_copy_key (int dir_fd, const char *dir, const char *name, const char *path,
            const userfs_owner_t *owner, hearth_error_t *err)
{
    zfile_t *file = zfile_new (NULL, path);
    zchunk_t *chunk = file && zfile_input (file) == 0
                          ? zfile_read (file, zfile_cursize (file), 0)
                          : NULL;
    int rc = !chunk
                 ? hearth_errprintf (err, "cannot read the key file %s", path)
                 : s_write_file (dir_fd, dir, name, zchunk_data (chunk),
                                 zchunk_size (chunk), 0600, owner, err);
    zchunk_destroy (&chunk);
    zfile_destroy (&file);
    return rc;
}

/* The key pair the master made for this launch (l->curve_secret), as
   the secret key file dir/.driver.key_secret (dir open: dir_fd), mode
   0600, owned by owner (or the worker).  Without it the driver does not
   start: the worker's own key is no driver's. */
static int
s_write_key (int dir_fd, const char *dir, const drivers_launch_t *l,
             const userfs_owner_t *owner, hearth_error_t *err)
{
    char text[KEY_TEXT_MAX];
    hearth_error_t why;
    if (!l->curve_secret)
        return hearth_errprintf (err, "the master sent no key for the driver "
                                      "(LAUNCH_DRIVER without curve_secret: a "
                                      "master older than this worker?), and a "
                                      "driver never gets the worker's own");
    int n = hearth_keys_secret_text (l->curve_secret, l->driver_id, text,
                                     sizeof text, &why);
    if (n < 0)
        return hearth_errprintf (err, "LAUNCH_DRIVER's curve_secret: %s",
                                 why.text);
    int rc = s_write_file (dir_fd, dir, drvdir_key_file, text, (size_t) n, 0600,
                           owner, err);
    explicit_bzero (text, sizeof text);
    return rc;
}

static bool
s_reserved_name (const char *name)
{
    for (int i = 0; s_reserved[i]; i++)
        if (strcmp (s_reserved[i], name) == 0)
            return true;
    return false;
}

/* Write the shipped files into the directory dir_fd (dir). */
static int
s_write_files (const drivers_launch_t *l, int dir_fd, const char *dir,
               const userfs_owner_t *owner, hearth_error_t *err)
{
    const cJSON *f;
    cJSON_ArrayForEach (f, l->files)
    {
        const cJSON *name = cJSON_GetObjectItem (f, "name");
        const cJSON *frame = cJSON_GetObjectItem (f, "frame");
        const cJSON *mode = cJSON_GetObjectItem (f, "mode");
        if (!cJSON_IsString (name) || !cJSON_IsNumber (frame)
            || frame->valuedouble < 0 || frame->valuedouble >= l->nframes)
            return hearth_errprintf (err, "bad file in LAUNCH_DRIVER");
        if (s_reserved_name (name->valuestring))
            return hearth_errprintf (err, "the file name '%s' is reserved",
                                     name->valuestring);
        mode_t m = cJSON_IsNumber (mode) ? (mode_t) mode->valueint
                   : l->binary && strcmp (name->valuestring, l->app) == 0
                       ? s_program_mode
                       : s_file_mode;
        zframe_t *data = l->frames[(size_t) frame->valuedouble];
        if (s_write_file (dir_fd, dir, name->valuestring, zframe_data (data),
                          zframe_size (data), m & 0777, owner, err)
            < 0)
            return -1;
    }
    return 0;
}

int
drvdir_prepare (children_t *children, const drivers_launch_t *l,
                const runas_user_t *u, const char *master_key, char *dir,
                size_t size, hearth_error_t *err)
{
    const hearth_spawn_ids_t *ids = u->switched ? &u->ids : NULL;
    userfs_owner_t o = {u->ids.uid, u->ids.gid};
    const userfs_owner_t *owner = ids ? &o : NULL;
    int fd = children_mkdir (children, l->driver_id, ids, dir, size, err);
    if (fd < 0)
        return -1;
    int rc = s_write_files (l, fd, dir, owner, err);
    if (rc == 0 && master_key)
        rc = s_write_key (fd, dir, l, owner, err);
    if (rc == 0 && ids && master_key)
        rc = s_copy_key (fd, dir, drvdir_master_copy, master_key, owner, err);
    close (fd);
    return rc;
}
