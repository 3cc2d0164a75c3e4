/*  libs.c - the application's shared libraries, shipped by the driver.

    Each library is named in REGISTERED_EXECUTOR with its SHA-1, fetched
    into the node's cache and checked there (shipfetch.c), and dlopen'ed
    from it.  A library that fails to load is remembered with its error,
    so that the tasks that need it fail with that error rather than with
    "no such function".
*/
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor/libs.h"

typedef struct {
    char *name;   /* as shipped, e.g. "libpi.so" */
    void *handle; /* from dlopen, or NULL */
    char *error;  /* why it could not be loaded, or NULL */
} s_lib_t;

/* Symbols found recently: dlsym costs hundreds of instructions, once per
   task otherwise. */
enum { s_cache_size = 16 };

typedef struct {
    char *lib;        /* library asked for, or NULL: any */
    char *fn;         /* symbol, or NULL: an empty slot */
    hearth_task_fn f; /* what the lookup found */
} s_cached_t;

struct libs {
    zlistx_t *list;                 /* s_lib_t, in the order shipped */
    s_cached_t cache[s_cache_size]; /* successful lookups */
    size_t next;                    /* slot the next one replaces */
};

static void
s_cache_clear (libs_t *self)
{
    for (size_t i = 0; i < s_cache_size; i++) {
        free (self->cache[i].lib);
        free (self->cache[i].fn);
        self->cache[i] = (s_cached_t){NULL, NULL, NULL};
    }
}

static hearth_task_fn
s_cache_find (libs_t *self, const char *lib, const char *fn)
{
    for (size_t i = 0; i < s_cache_size; i++) {
        s_cached_t *c = &self->cache[i];
        if (c->fn && strcmp (c->fn, fn) == 0
            && (lib ? c->lib && strcmp (c->lib, lib) == 0 : !c->lib))
            return c->f;
    }
    return NULL;
}

static void
s_cache_add (libs_t *self, const char *lib, const char *fn, hearth_task_fn f)
{
    s_cached_t *c = &self->cache[self->next];
    self->next = (self->next + 1) % s_cache_size;
    free (c->lib);
    free (c->fn);
    c->lib = lib ? strdup (lib) : NULL;
    c->fn = strdup (fn);
    c->f = f;
    if (!c->fn || (lib && !c->lib)) { /* no memory: no cache */
        free (c->lib);
        free (c->fn);
        *c = (s_cached_t){NULL, NULL, NULL};
    }
}

static void
s_lib_destroy (void **item)
{
    s_lib_t *lib = *item;
    if (!lib)
        return;
    if (lib->handle)
        dlclose (lib->handle);
    free (lib->name);
    free (lib->error);
    free (lib);
    *item = NULL;
}

libs_t *
libs_new (void)
{
    libs_t *self = calloc (1, sizeof *self);
    if (!self || !(self->list = zlistx_new ())) {
        free (self);
        return NULL;
    }
    zlistx_set_destructor (self->list, s_lib_destroy);
    return self;
}

void
libs_destroy (libs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    libs_t *self = *self_p;
    s_cache_clear (self);
    zlistx_destroy (&self->list);
    free (self);
    *self_p = NULL;
    errno = saved;
}

int
libs_add (libs_t *self, const char *name, const char *path, hearth_error_t *err)
{
    s_lib_t *lib = calloc (1, sizeof *lib);
    if (!lib || !(lib->name = strdup (name))) {
        free (lib);
        return hearth_errprintf (err, "out of memory");
    }
    zlistx_add_end (self->list, lib);
    s_cache_clear (self); /* "any library" may now mean another one */
    if (path && !(lib->handle = dlopen (path, RTLD_NOW | RTLD_LOCAL)))
        hearth_errprintf (err, "cannot load library %s: %s", name, dlerror ());
    if (!lib->handle) {
        lib->error = strdup (err->text);
        return -1;
    }
    return 0;
}

static hearth_task_fn
s_symbol (s_lib_t *lib, const char *fn)
{
    if (!lib->handle)
        return NULL;
    hearth_task_fn f;
    void *sym = dlsym (lib->handle, fn);
    memcpy (&f, &sym, sizeof f); /* object to function pointer, POSIX-style */
    return f;
}

hearth_task_fn
libs_lookup (libs_t *self, const char *lib, const char *fn, hearth_error_t *err)
{
    hearth_task_fn cached = s_cache_find (self, lib, fn);
    if (cached)
        return cached;
    const char *load_error = NULL;
    for (s_lib_t *l = zlistx_first (self->list); l;
         l = zlistx_next (self->list)) {
        if (lib && strcmp (l->name, lib) != 0)
            continue;
        hearth_task_fn f = s_symbol (l, fn);
        if (f) {
            s_cache_add (self, lib, fn, f);
            return f;
        }
        if (l->error)
            load_error = l->error;
    }
    if (load_error)
        hearth_errprintf (err, "%s", load_error);
    else if (zlistx_size (self->list) == 0)
        hearth_errcode (err, LIBS_NO_FUNCTION,
                        "no function %s: the application shipped no "
                        "library (use --lib)",
                        fn);
    else
        hearth_errcode (err, LIBS_NO_FUNCTION,
                        "no function %s in the shipped %s", fn,
                        lib ? lib : "libraries");
    return NULL;
}
