/*  libfns.c - the functions the application's libraries export; see
    libfns.h.

    What an executor's dlopen would refuse on every host is refused here:
    a file that is not ELF, of another word size or byte order, for
    another processor, an ELF that is not a shared library (an object
    file, a program: a position-independent executable is ET_DYN too,
    and only its DF_1_PIE flag tells it apart).  What dlopen refuses on
    one host only (a dependency missing there) is the executor's to
    report, and retried elsewhere.  The functions are the library's
    dynamic symbols (what dlsym finds in it): defined, global or weak,
    of type FUNC or IFUNC.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/log.h"
#include "libhearth/elflib.h"
#include "libhearth/libfns.h"

struct libfns {
    zhashx_t *fns;   /* function names (keys; values unused) */
    bool unknown;    /* a library without a readable symbol table */
    char names[512]; /* base names, for the messages */
};

/* libelf (NULL when it could not be loaded: then nothing is checked
   here, and the executors' dlopen says what is wrong), and this
   process's own ELF machine, the one a library must match (EM_NONE when
   it could not be read: then any machine passes here). */
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static const hearth_elf_t *s_elf;
static GElf_Half s_machine = EM_NONE;

static void
s_init (void)
{
    hearth_error_t err;
    if (!(s_elf = hearth_elf (&err))) {
        log_warn ("the libraries are not checked before they are shipped: "
                  "%s (install libelf1)",
                  err.text);
        return;
    }
    int fd = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    Elf *e = fd >= 0 ? s_elf->begin (fd, ELF_C_READ, NULL) : NULL;
    GElf_Ehdr h;
    if (e && s_elf->getehdr (e, &h))
        s_machine = h.e_machine;
    s_elf->end (e);
    if (fd >= 0)
        close (fd);
}

static int
s_native_class (void)
{
    return sizeof (void *) == 8 ? ELFCLASS64 : ELFCLASS32;
}

static int
s_native_data (void)
{
    const uint16_t one = 1;
    return *(const uint8_t *) &one == 1 ? ELFDATA2LSB : ELFDATA2MSB;
}

static const char *
s_type_name (GElf_Half type)
{
    switch (type) {
    case ET_REL:
        return "object file (.o), not a shared library";
    case ET_EXEC:
        return "executable, not a shared library";
    case ET_CORE:
        return "core dump, not a shared library";
    default:
        return "file of an unknown type, not a shared library";
    }
}

/* The identification bytes: an ELF file of this machine's word size and
   byte order, or -1 with err saying what the file is instead. */
static int
s_check_ident (int fd, const char *path, hearth_error_t *err)
{
    unsigned char id[EI_NIDENT];
    ssize_t n = pread (fd, id, sizeof id, 0);
    if (n < 0)
        return hearth_errprintf (err, "cannot read library %s: %s", path,
                                 strerror (errno));
    if (n < (ssize_t) sizeof id || memcmp (id, ELFMAG, SELFMAG) != 0)
        return hearth_errprintf (err,
                                 "library %s is not a shared library: not "
                                 "an ELF file",
                                 path);
    if (id[EI_CLASS] != s_native_class ())
        return hearth_errprintf (
            err, "library %s is %s-bit; this machine's programs are %d-bit",
            path, id[EI_CLASS] == ELFCLASS32 ? "32" : "not 32 or 64",
            s_native_class () == ELFCLASS64 ? 64 : 32);
    if (id[EI_DATA] != s_native_data ())
        return hearth_errprintf (err,
                                 "library %s is for a machine of the other "
                                 "byte order",
                                 path);
    return 0;
}

/* The header: a shared library for this processor. */
static int
s_check_header (Elf *e, const char *path, hearth_error_t *err)
{
    GElf_Ehdr h;
    if (!s_elf->getehdr (e, &h))
        return hearth_errprintf (err,
                                 "library %s is not a readable ELF file: %s",
                                 path, s_elf->errmsg (-1));
    if (h.e_type != ET_DYN)
        return hearth_errprintf (err, "library %s is an ELF %s", path,
                                 s_type_name (h.e_type));
    if (s_machine != EM_NONE && h.e_machine != s_machine)
        return hearth_errprintf (err,
                                 "library %s is built for another processor "
                                 "(ELF machine %u; this one is %u)",
                                 path, (unsigned) h.e_machine,
                                 (unsigned) s_machine);
    return 0;
}

/* 1 when the dynamic section says a position-independent executable. */
static int
s_is_pie (Elf_Scn *scn, const GElf_Shdr *sh)
{
    Elf_Data *d = s_elf->getdata (scn, NULL);
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; d && i < n; i++) {
        GElf_Dyn dyn;
        if (!s_elf->getdyn (d, (int) i, &dyn) || dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
            return 1;
    }
    return 0;
}

/* The defined functions of a dynamic symbol table, into self. */
static void
s_add_symbols (libfns_t *self, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
    Elf_Data *d = s_elf->getdata (scn, NULL);
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; d && i < n; i++) {
        GElf_Sym sym;
        if (!s_elf->getsym (d, (int) i, &sym))
            break;
        int type = GELF_ST_TYPE (sym.st_info),
            bind = GELF_ST_BIND (sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC)
            || (bind != STB_GLOBAL && bind != STB_WEAK)
            || sym.st_shndx == SHN_UNDEF)
            continue;
        const char *name = s_elf->strptr (e, sh->sh_link, sym.st_name);
        if (name && *name)
            zhashx_insert (self->fns, name, self);
    }
}

/* The sections: refused for a PIE, else its dynamic symbols read. */
static int
s_read_sections (libfns_t *self, Elf *e, const char *path, hearth_error_t *err)
{
    bool symbols = false;
    for (Elf_Scn *scn = s_elf->nextscn (e, NULL); scn;
         scn = s_elf->nextscn (e, scn)) {
        GElf_Shdr sh;
        if (!s_elf->getshdr (scn, &sh))
            continue;
        if (sh.sh_type == SHT_DYNAMIC && s_is_pie (scn, &sh))
            return hearth_errprintf (err,
                                     "library %s is a position-independent "
                                     "executable, not a shared library",
                                     path);
        if (sh.sh_type == SHT_DYNSYM) {
            s_add_symbols (self, e, scn, &sh);
            symbols = true;
        }
    }
    if (!symbols)
        self->unknown = true; /* stripped of its sections: dlsym will tell */
    return 0;
}

static int
s_add_file (libfns_t *self, const char *path, hearth_error_t *err)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hearth_errprintf (err, "cannot read library %s: %s", path,
                                 strerror (errno));
    Elf *e = NULL;
    int rc = s_check_ident (fd, path, err);
    if (rc == 0 && !(e = s_elf->begin (fd, ELF_C_READ, NULL)))
        rc = hearth_errprintf (err, "library %s is not a readable ELF file: %s",
                               path, s_elf->errmsg (-1));
    if (rc == 0)
        rc = s_check_header (e, path, err);
    if (rc == 0)
        rc = s_read_sections (self, e, path, err);
    s_elf->end (e);
    close (fd);
    return rc;
}

static void
s_add_name (libfns_t *self, const char *path)
{
    const char *slash = strrchr (path, '/');
    size_t used = strlen (self->names);
    snprintf (self->names + used, sizeof self->names - used, "%s%s",
              used ? ", " : "", slash ? slash + 1 : path);
}

libfns_t *
libfns_new (const char *const *paths, size_t n, hearth_error_t *err)
{
    pthread_once (&s_once, s_init);
    libfns_t *self = calloc (1, sizeof *self);
    if (!self || !(self->fns = zhashx_new ())) {
        free (self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (!s_elf && n > 0)
        self->unknown = true; /* no libelf: nothing known, nothing refused */
    for (size_t i = 0; self && s_elf && i < n; i++) {
        if (s_add_file (self, paths[i], err) < 0)
            libfns_destroy (&self);
        else
            s_add_name (self, paths[i]);
    }
    return self;
}

int
libfns_has (const libfns_t *self, const char *fn)
{
    if (zhashx_lookup (self->fns, fn))
        return 1;
    return self->unknown ? -1 : 0;
}

const char *
libfns_names (const libfns_t *self)
{
    return self->names;
}

void
libfns_destroy (libfns_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->fns);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}
