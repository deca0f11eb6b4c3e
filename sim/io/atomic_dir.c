#define _GNU_SOURCE /* renameat2 */
#include "atomic_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io.h"

/* Whether path is the working directory or one of its ancestors (the root included). */
static bool inside_cwd(const char *path)
{
    char *rp = realpath(path, NULL), *cwd = getcwd(NULL, 0);
    size_t n = rp ? strlen(rp) : 0;
    bool in = rp && cwd && !strncmp(cwd, rp, n) && (cwd[n] == '\0' || cwd[n] == '/' || n == 1);
    free(rp);
    free(cwd);
    return in;
}

/* 1 when dir has entries, 0 when empty, -1 when it cannot be read. */
static int has_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; !n && (e = readdir(d));) n = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Removes parent/.base.run.XXXXXX directories whose owner is gone: a live run holds an flock on
 * its temporary until commit or abort, and the kernel drops it when the process dies. */
static void remove_stale(const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    if (!d) return;
    size_t bl = strlen(base);
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        if (n[0] != '.' || strncmp(n + 1, base, bl) || strncmp(n + 1 + bl, ".run.", 5) || strlen(n + 1 + bl + 5) != 6)
            continue;
        char *p = ls_io_path_join(parent, n);
        int fd = p ? open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) (void)ls_io_remove_tree(p);   /* still locked: removed under it */
        if (fd >= 0) close(fd);
        free(p);
    }
    closedir(d);
}

/* Makes and locks the temporary directory (template tmp). A stale sweep by another process may
 * take the new directory between mkdtemp and flock (it sees it unlocked): then it is gone or not
 * the one locked, and another name is tried. Returns the lock's fd, or -1 with errno. */
static int make_locked_tmp(char *tmp)
{
    size_t tl = strlen(tmp);
    for (int tries = 0; tries < 16; tries++) {
        memcpy(tmp + tl - 6, "XXXXXX", 6);
        if (!mkdtemp(tmp)) return -1;
        int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat a, b;
        if (fd >= 0 && flock(fd, LOCK_EX) == 0 && fstat(fd, &a) == 0 && stat(tmp, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev)
            return fd;
        if (fd >= 0) close(fd);
    }
    errno = EAGAIN;
    return -1;
}

int ls_atomic_dir_open(ls_atomic_dir *ad, const char *path, bool replace, char *err, size_t errlen)
{
    memset(ad, 0, sizeof *ad);
    size_t n = path ? strlen(path) : 0;
    while (n > 1 && path[n - 1] == '/') n--; /* "out/run/" names out/run */
    if (!n) {
        ls_io_err(err, errlen, "empty output directory name");
        return 2;
    }
    char *final = strndup(path, n);
    if (!final) {
        ls_io_err(err, errlen, "out of memory");
        return 1;
    }
    /* "." or "..": the directory's own name is what gets swapped */
    const char *last = strrchr(final, '/');
    last = last ? last + 1 : final;
    if (!strcmp(last, ".") || !strcmp(last, "..")) {
        char *real = realpath(final, NULL);
        free(final);
        if (!real) {
            ls_io_err(err, errlen, "%s: %s", path, strerror(errno));
            return 2;
        }
        final = real;
    }
    /* a symbolic link: the run goes into the directory it names (the swap renames over the
     * target; renaming over the link itself would fail after the whole computation) */
    struct stat lst;
    if (lstat(final, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        char *real = realpath(final, NULL);
        if (!real) {
            ls_io_err(err, errlen, "%s: symbolic link to a missing directory (%s)", final, strerror(errno));
            free(final);
            return 2;
        }
        free(final);
        final = real;
    }
    if (inside_cwd(final)) {
        ls_io_err(err, errlen, "%s: the current directory (or a directory containing it) cannot be an output "
                  "directory: a run directory is replaced as a whole, by rename", path);
        free(final);
        return 2;
    }
    struct stat st;
    if (stat(final, &st) == 0) {
        int full = S_ISDIR(st.st_mode) ? has_entries(final) : 0;
        const char *why = !S_ISDIR(st.st_mode) ? "exists and is not a directory"
                          : full < 0           ? "cannot be read"
                          : full && !replace   ? "output directory is not empty (use --force to overwrite)"
                                               : NULL;
        if (why) {
            ls_io_err(err, errlen, "%s: %s", final, why);
            free(final);
            return 2;
        }
    }
    const char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    char *parent = slash ? strndup(final, slash == final ? 1 : (size_t)(slash - final)) : strdup(".");
    char *tmp = parent ? malloc(strlen(parent) + strlen(base) + 16) : NULL;
    if (!tmp) {
        free(parent);
        free(final);
        ls_io_err(err, errlen, "out of memory");
        return 1;
    }
    sprintf(tmp, "%s/.%s.run.XXXXXX", parent, base);
    int rc = ls_io_make_dirs(parent, err, errlen);
    if (!rc) remove_stale(parent, base);
    free(parent);
    int lock = -1;
    if (!rc && (lock = make_locked_tmp(tmp)) < 0) {
        ls_io_err(err, errlen, "%s: cannot create a directory next to it: %s", final, strerror(errno));
        rc = -1;
    }
    if (rc) {
        free(tmp);
        free(final);
        return 2;
    }
    mode_t um = umask(0);
    umask(um);
    (void)chmod(tmp, 0777 & ~um); /* mkdtemp makes it private */
    ad->final_path = final;
    ad->tmp_path = tmp;
    ad->replace = replace;
    ad->lock_fd = lock;
    return 0;
}

static int commit(ls_atomic_dir *ad, char *err, size_t errlen);

/* ---- removal on SIGINT, SIGTERM, SIGHUP ----
 * One armed directory per process (a run's). The handler uses async-signal-safe calls only: the
 * directory is open already, its entries are listed with getdents64 and unlinked relative to it
 * (a run directory holds plain files only), then the signal is raised again with the previous
 * disposition, so the process still dies of it (exit 130, 143, 129 in a shell). */
static const int g_sigs[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction g_old[3];
static bool g_installed[3];
static volatile sig_atomic_t g_armed;
static int g_dirfd = -1;
static const char *g_tmp;
static const ls_atomic_dir *g_ad;

struct linux_dirent64_ {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void remove_armed(void)
{
    static char buf[8192];
    for (int pass = 0; pass < 64; pass++) {   /* deleting while listing may skip entries: list again */
        int removed = 0;
        long n;
        (void)lseek(g_dirfd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, g_dirfd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct linux_dirent64_ *d = (struct linux_dirent64_ *)(buf + off);
                off += d->d_reclen;
                if (d->d_name[0] == '.' && (!d->d_name[1] || (d->d_name[1] == '.' && !d->d_name[2]))) continue;
                removed += unlinkat(g_dirfd, d->d_name, 0) == 0;
            }
        if (!removed) break;
    }
    (void)rmdir(g_tmp);
}

static void on_signal(int sig)
{
    if (g_armed) {
        g_armed = 0;
        remove_armed();
    }
    for (int i = 0; i < 3; i++)
        if (g_sigs[i] == sig && g_installed[i]) sigaction(sig, &g_old[i], NULL);
    raise(sig);   /* blocked until this handler returns, then delivered with the old disposition */
}

static void disarm(const ls_atomic_dir *ad)
{
    if (g_ad != ad || !ad) return;
    g_armed = 0;
    for (int i = 0; i < 3; i++)
        if (g_installed[i]) sigaction(g_sigs[i], &g_old[i], NULL), g_installed[i] = false;
    if (g_dirfd >= 0) close(g_dirfd);
    g_dirfd = -1;
    g_tmp = NULL;
    g_ad = NULL;
}

int ls_atomic_dir_remove_on_signals(ls_atomic_dir *ad)
{
    if (!ad || !ad->tmp_path || g_ad) return -1;
    g_dirfd = open(ad->tmp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g_dirfd < 0) return -1;
    g_tmp = ad->tmp_path;
    g_ad = ad;
    g_armed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, g_sigs[i]);
    for (int i = 0; i < 3; i++) {
        struct sigaction cur;
        if (sigaction(g_sigs[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN) continue;  /* nohup: still ignored */
        g_installed[i] = sigaction(g_sigs[i], &sa, &g_old[i]) == 0;
    }
    return 0;
}

void ls_atomic_dir_abort(ls_atomic_dir *ad)
{
    if (!ad) return;
    disarm(ad);
    if (ad->tmp_path) (void)ls_io_remove_tree(ad->tmp_path);
    if (ad->tmp_path && ad->lock_fd >= 0) close(ad->lock_fd);
    free(ad->tmp_path);
    free(ad->final_path);
    memset(ad, 0, sizeof *ad);
}

static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *parent = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!parent) return;
    int fd = open(parent, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(parent);
}

int ls_atomic_dir_commit(ls_atomic_dir *ad, char *err, size_t errlen)
{
    /* the directory is about to become the destination: a signal now must not empty it, so the
     * signals wait until the swap is done (then act as they would have) */
    sigset_t block, prev;
    sigemptyset(&block);
    for (int i = 0; i < 3; i++) sigaddset(&block, g_sigs[i]);
    pthread_sigmask(SIG_BLOCK, &block, &prev);
    disarm(ad);
    int rc = commit(ad, err, errlen);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    return rc;
}

static int commit(ls_atomic_dir *ad, char *err, size_t errlen)
{
    const char *fin = ad->final_path, *tmp = ad->tmp_path;
    /* a missing or empty destination is replaced by a plain rename */
    if (rename(tmp, fin) == 0) goto done;
    if (errno != ENOTEMPTY && errno != EEXIST) goto fail;
    if (!ad->replace) {   /* filled since open (another run, a file added): never deleted without --force */
        ls_io_err(err, errlen, "%s: output directory is not empty any more: something was written into it during the "
                  "run (another run?); nothing replaced, this run's result is discarded (use --force to overwrite)", fin);
        ls_atomic_dir_abort(ad);
        return -1;
    }
    /* a previous run: exchange the two atomically, then remove the old one (now at tmp) */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, fin, RENAME_EXCHANGE) == 0) {
        (void)ls_io_remove_tree(tmp);
        goto done;
    }
    if (errno != EINVAL && errno != ENOSYS) goto fail;
    /* no exchange on this filesystem: move the old one aside first (never a mix, briefly none) */
    {
        char *old = malloc(strlen(tmp) + 5);
        if (!old) goto fail;
        sprintf(old, "%s.old", tmp);
        if (rename(fin, old) != 0) {
            free(old);
            goto fail;
        }
        if (rename(tmp, fin) != 0) {
            int e = errno;
            (void)rename(old, fin);
            free(old);
            errno = e;
            goto fail;
        }
        (void)ls_io_remove_tree(old);
        free(old);
    }
done:
    sync_parent(fin);
    if (ad->lock_fd >= 0) close(ad->lock_fd);
    free(ad->tmp_path);
    free(ad->final_path);
    memset(ad, 0, sizeof *ad);
    return 0;
fail:
    ls_io_err(err, errlen, "%s: cannot move the finished run into place: %s", fin, strerror(errno));
    ls_atomic_dir_abort(ad);
    return -1;
}

void ls_atomic_dir_name_final(const ls_atomic_dir *ad, char *msg, size_t len)
{
    if (!ad || !ad->tmp_path || !ad->final_path || !msg) return;
    char *at = strstr(msg, ad->tmp_path);
    if (!at) return;
    size_t tl = strlen(ad->tmp_path);
    char *rest = strdup(at + tl);
    if (!rest) return;
    size_t head = (size_t)(at - msg);
    snprintf(at, len - head, "%s%s", ad->final_path, rest);
    free(rest);
}
