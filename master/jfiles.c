/*  jfiles.c - the bytes the journal's records refer to but do not hold
    (a cluster-mode driver's files while it may be launched again), kept
    as DIR/files/KEY/N beside the journal; see jfiles.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "master/jfiles.h"
#include "master/jio.h"

/* Private to the master's user, like the journal. */
static const mode_t s_dir_mode = JIO_DIR_MODE, s_file_mode = JIO_FILE_MODE;

static void
s_files_path (const journal_t *self, char *buf, size_t size, const char *key,
              const char *suffix)
{
    snprintf (buf, size, "%s/files/%s%s", journal_dir (self), key, suffix);
}

int
journal_files_put (journal_t *self, const char *key, zframe_t *const *frames,
                   size_t n, hearth_error_t *err)
{
    char tmp[4200], dir[4200], path[4300];
    snprintf (path, sizeof path, "%s/files", journal_dir (self));
    if (mkdir (path, s_dir_mode) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", path,
                                 strerror (errno));
    s_files_path (self, tmp, sizeof tmp, key, ".tmp");
    s_files_path (self, dir, sizeof dir, key, "");
    jio_rm_tree (tmp);
    if (mkdir (tmp, s_dir_mode) < 0)
        return hearth_errprintf (err, "cannot create %s: %s", tmp,
                                 strerror (errno));
    for (size_t i = 0; i < n; i++) {
        snprintf (path, sizeof path, "%s/%zu", tmp, i);
        int fd =
            open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s_file_mode);
        bool ok =
            fd >= 0
            && hearth_write_all (fd, (const char *) zframe_data (frames[i]),
                                 zframe_size (frames[i]))
                   == 0
            && fdatasync (fd) == 0;
        if (fd >= 0)
            close (fd);
        if (!ok) {
            hearth_errprintf (err, "cannot write %s: %s", path,
                              strerror (errno));
            jio_rm_tree (tmp);
            return -1;
        }
    }
    jio_rm_tree (dir);
    if (rename (tmp, dir) < 0) {
        hearth_errprintf (err, "cannot rename %s: %s", tmp, strerror (errno));
        jio_rm_tree (tmp);
        return -1;
    }
    snprintf (path, sizeof path, "%s/files", journal_dir (self));
    int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync (fd);
        close (fd);
    }
    return 0;
}

bool
journal_files_have (journal_t *self, const char *key)
{
    char dir[4200];
    s_files_path (self, dir, sizeof dir, key, "");
    return access (dir, F_OK) == 0;
}

zframe_t **
journal_files_get (journal_t *self, const char *key, size_t n,
                   hearth_error_t *err)
{
    char path[4300];
    zframe_t **frames = calloc (n ? n : 1, sizeof *frames);
    if (!frames) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len;
        s_files_path (self, path, sizeof path, key, "");
        snprintf (path + strlen (path), sizeof path - strlen (path), "/%zu", i);
        char *data = jio_read_file (path, &len);
        if (!data || !(frames[i] = zframe_new (data, len))) {
            hearth_errprintf (err, "cannot read %s: %s", path,
                              data ? "out of memory" : strerror (errno));
            free (data);
            for (size_t k = 0; k < i; k++)
                zframe_destroy (&frames[k]);
            free (frames);
            return NULL;
        }
        free (data);
    }
    return frames;
}

void
journal_files_drop (journal_t *self, const char *key)
{
    char dir[4200];
    s_files_path (self, dir, sizeof dir, key, "");
    jio_rm_tree (dir);
}

void
journal_files_gc (journal_t *self, bool (*keep) (void *arg, const char *key),
                  void *arg)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/files", journal_dir (self));
    DIR *d = opendir (path);
    struct dirent *ent;
    zlistx_t *gone = zlistx_new ();
    while (d && gone && (ent = readdir (d)))
        if (ent->d_name[0] != '.' && !keep (arg, ent->d_name))
            zlistx_add_end (gone, strdup (ent->d_name));
    if (d)
        closedir (d);
    for (char *key = gone ? zlistx_first (gone) : NULL; key;
         key = zlistx_next (gone)) {
        snprintf (path, sizeof path, "%s/files/%s", journal_dir (self), key);
        jio_rm_tree (path);
        free (key);
    }
    zlistx_destroy (&gone);
}
