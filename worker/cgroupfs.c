/*  cgroupfs.c - the cgroup file helpers that cgroup.c and its two
    backends share: reading and writing a group's files, finding the
    hierarchies' mounts and the worker's own groups, making the worker's
    directories.  It calls nothing of the worker; see cgroup_impl.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/cgroup_impl.h"

/* The worker's directories (cgroupfs ignores the mode; a fake tree
   keeps it). */
static const mode_t s_dir_mode = 0755;

/* --- files ------------------------------------------------------------- */

int
cgroup_write (const cgroups_t *tree, const char *dir, const char *file,
              const char *value)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    int flags = O_WRONLY | O_CLOEXEC;
    if (tree->plain_files)
        flags |= O_CREAT | O_TRUNC;
    int fd = open (path, flags, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen (value);
    ssize_t w = write (fd, value, n);
    int saved = errno;
    close (fd);
    errno = saved;
    return w == (ssize_t) n ? 0 : -1;
}

bool
cgroup_has_file (const char *dir, const char *file)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    return access (path, F_OK) == 0;
}

ssize_t
cgroup_read (const char *dir, const char *file, char *buf, size_t size)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read (fd, buf, size - 1);
    close (fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

int64_t
cgroup_read_int (const char *dir, const char *file)
{
    char buf[64];
    if (cgroup_read (dir, file, buf, sizeof buf) <= 0)
        return -1;
    char *end;
    long long v = strtoll (buf, &end, 10);
    return end == buf || v < 0 ? -1 : (int64_t) v;
}

int64_t
cgroup_read_key (const char *dir, const char *file, const char *key)
{
    char buf[4096];
    if (cgroup_read (dir, file, buf, sizeof buf) <= 0)
        return -1;
    size_t n = strlen (key);
    for (char *line = buf; line && *line; line = strchr (line, '\n')) {
        if (*line == '\n')
            line++;
        if (strncmp (line, key, n) == 0 && line[n] == ' ')
            return strtoll (line + n + 1, NULL, 10);
    }
    return -1;
}

/* --- where the hierarchies are ---------------------------------------- */

/* Whether word is one of the comma-separated items of list. */
static bool
s_in_list (const char *list, const char *word)
{
    size_t n = strlen (word);
    for (const char *p = list; p; p = strchr (p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp (p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    }
    return false;
}

int
cgroup_find_mount (const char *fstype, const char *controller, char *buf,
                   size_t size)
{
    FILE *f = fopen ("/proc/self/mountinfo", "re");
    char line[4096];
    int rc = -1;
    while (f && rc < 0 && fgets (line, sizeof line, f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - TYPE SOURCE SUPER */
        char root[1024], point[1024], type[64], super[1024];
        char *dash = strstr (line, " - ");
        if (!dash
            || sscanf (line, "%*s %*s %*s %1023s %1023s", root, point) != 2
            || sscanf (dash + 3, "%63s %*s %1023s", type, super) != 2)
            continue;
        if (strcmp (type, fstype) != 0 || strcmp (root, "/") != 0)
            continue;
        if (controller && !s_in_list (super, controller))
            continue;
        if ((size_t) snprintf (buf, size, "%s", point) < size)
            rc = 0;
    }
    if (f)
        fclose (f);
    return rc;
}

int
cgroup_own_path (const char *controller, char *buf, size_t size)
{
    FILE *f = fopen ("/proc/self/cgroup", "re");
    char line[4096];
    int rc = -1;
    while (f && rc < 0 && fgets (line, sizeof line, f)) {
        /* ID:CONTROLLERS:PATH */
        line[strcspn (line, "\n")] = '\0';
        char *c1 = strchr (line, ':');
        char *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        bool match = controller ? s_in_list (c1 + 1, controller)
                                : strcmp (line, "0:") == 0 && !c1[1];
        if (match && (size_t) snprintf (buf, size, "%s", c2 + 1) < size)
            rc = 0;
    }
    if (f)
        fclose (f);
    return rc;
}

/* mkdir -p path. */
static int
s_mkdirs (char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir (path, s_dir_mode);
        *p = c;
        if (rc < 0 && errno != EEXIST)
            return -1;
        if (c == '\0')
            return 0;
    }
}

int
cgroups_add_dir (cgroups_t *tree, const char *kind, const char *mount,
                 const char *own, const char *worker_id, hearth_error_t *err)
{
    char path[4096];
    if (tree->ndirs == CGROUP_MAX_DIRS)
        return hearth_errprintf (err, "too many cgroup hierarchies");
    int n = snprintf (path, sizeof path, "%s%s%s/hearth/%s", mount,
                      own[0] == '/' ? "" : "/", strcmp (own, "/") ? own : "",
                      worker_id);
    if (n < 0 || (size_t) n >= sizeof path)
        return hearth_errprintf (err, "cgroup path too long under %s", mount);
    if (s_mkdirs (path) < 0)
        return hearth_errprintf (err, "cannot create %s: %s", path,
                                 strerror (errno));
    tree->kinds[tree->ndirs] = strdup (kind);
    tree->dirs[tree->ndirs] = strdup (path);
    if (!tree->kinds[tree->ndirs] || !tree->dirs[tree->ndirs]) {
        free (tree->kinds[tree->ndirs]);
        free (tree->dirs[tree->ndirs]);
        return hearth_errprintf (err, "out of memory");
    }
    tree->ndirs++;
    return 0;
}

/* --- a group's directories ------------------------------------------ */

const char *
cgroup_dir_of (const cgroup_t *g, const char *kind)
{
    for (size_t i = 0; i < g->tree->ndirs; i++)
        if (g->dirs[i] && strcmp (g->tree->kinds[i], kind) == 0)
            return g->dirs[i];
    return NULL;
}
