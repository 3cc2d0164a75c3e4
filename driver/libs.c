/*  libs.c - the libraries of function tasks shipped to every executor.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "driver/libs.h"

/* One library. */
typedef struct {
    char *name;     /* file name, e.g. "libpi.so" */
    char hash[64];  /* SHA-1, hex */
    zchunk_t *data; /* its bytes */
} s_lib_t;

struct libs {
    s_lib_t *lib; /* in the order of the setting */
    size_t n;     /* entries at lib */
};

static int
s_load (libs_t *self, const char *path, hearth_error_t *err)
{
    zfile_t *file = zfile_new (NULL, path);
    zchunk_t *data = NULL;
    if (!file || zfile_input (file) < 0
        || !(data = zfile_read (file, zfile_cursize (file), 0))) {
        zfile_destroy (&file);
        return hearth_errprintf (err, "cannot read library %s: %s", path,
                                 strerror (errno));
    }
    zfile_destroy (&file);
    s_lib_t *lib = realloc (self->lib, (self->n + 1) * sizeof *lib);
    if (!lib) {
        zchunk_destroy (&data);
        return hearth_errprintf (err, "out of memory");
    }
    self->lib = lib;
    lib = &self->lib[self->n++];
    const char *slash = strrchr (path, '/');
    lib->name = strdup (slash ? slash + 1 : path);
    lib->data = data;
    snprintf (lib->hash, sizeof lib->hash, "%s", zchunk_digest (data));
    return 0;
}

libs_t *
libs_new (hearth_conf_t *conf, hearth_error_t *err)
{
    libs_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    const char *const *paths;
    size_t n = hearth_conf_list (conf, "lib", &paths);
    for (size_t i = 0; self && i < n; i++)
        if (s_load (self, paths[i], err) < 0)
            libs_destroy (&self);
    return self;
}

void
libs_destroy (libs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    libs_t *self = *self_p;
    for (size_t i = 0; i < self->n; i++) {
        free (self->lib[i].name);
        zchunk_destroy (&self->lib[i].data);
    }
    free (self->lib);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
libs_add (const libs_t *self, hearth_msg_t *msg, cJSON *array)
{
    for (size_t i = 0; i < self->n; i++) {
        const s_lib_t *lib = &self->lib[i];
        int frame = hearth_msg_add_bytes (msg, zchunk_data (lib->data),
                                          zchunk_size (lib->data));
        cJSON *l = cJSON_CreateObject ();
        cJSON_AddStringToObject (l, "name", lib->name);
        cJSON_AddStringToObject (l, "hash", lib->hash);
        cJSON_AddNumberToObject (l, "frame", frame);
        cJSON_AddItemToArray (array, l);
    }
}
