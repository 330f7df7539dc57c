/*
 * lazyfs: a FUSE passthrough filesystem that loses what was not synced, for power-loss tests
 * (the idea of Jepsen's LazyFS, written for Slipstream's reliability campaign).
 *
 *   lazyfs <backing-dir> <mountpoint> [--fail-fsync-if <path>]
 *
 * Every file of the mount is the file of the same name in the backing directory, but a write or
 * a truncation does not reach the backing file: it stays in this process's memory, as dirty
 * pages of the file (the "page cache"), until an fsync or fdatasync of that file (through any
 * descriptor, as on Linux; a file opened with O_SYNC or O_DSYNC syncs after each write).
 * Reads see the dirty pages over the backing file. So the backing directory holds exactly the
 * data that was synced, and a power loss is this process dying: kill it with SIGKILL, unmount
 * the dead mount (fusermount3 -u -z), and what the backing directory holds is what survived.
 *
 * Namespace operations (create, mkdir, rename, unlink, link, symlink, chmod...) go to the
 * backing directory at once, as LazyFS does: this filesystem loses unsynced data, not
 * directory entries (a journaling filesystem may lose those too unless the directory is synced;
 * that is not modelled). fsync of a directory is accepted and does nothing.
 *
 * With --fail-fsync-if <path>, every fsync fails with EIO while <path> exists (the data stays
 * unsynced), to test how a program handles a failing disk.
 *
 * Runs single-threaded (-s), so no locking is needed. Build:
 *   cc -O2 -Wall -o lazyfs lazyfs.c $(pkg-config fuse3 --cflags --libs)
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#define PAGE_SIZE 4096

/* One page of a file's unsynced content: what the file holds there now. */
struct page {
  off_t index;
  struct page *next;
  unsigned char data[PAGE_SIZE];
};

/* A file with unsynced changes: its dirty pages and its size as the programs see it. */
struct dirty_file {
  char *path; /* relative to the mount, as FUSE names it ("/a/b") */
  off_t size;
  /*
   * The backing file's bytes below this offset are still the file's content where no page
   * is dirty; above it they were cut off by an unsynced truncation and read as zeros.
   */
  off_t backing_valid;
  struct page **buckets;
  size_t bucket_count;
  size_t page_count;
  struct dirty_file *next;
};

static char *backing_root;
static char *fail_fsync_flag;
static struct dirty_file *dirty_files;

static char *backing_path(const char *path) {
  char *full = malloc(strlen(backing_root) + strlen(path) + 1);
  if (full == NULL) abort();
  strcpy(full, backing_root);
  strcat(full, path);
  return full;
}

static struct dirty_file *find_dirty(const char *path) {
  for (struct dirty_file *f = dirty_files; f != NULL; f = f->next)
    if (strcmp(f->path, path) == 0) return f;
  return NULL;
}

static struct page *find_page(struct dirty_file *f, off_t index) {
  for (struct page *p = f->buckets[index % f->bucket_count]; p != NULL; p = p->next)
    if (p->index == index) return p;
  return NULL;
}

static void insert_page(struct dirty_file *f, struct page *p) {
  size_t bucket = p->index % f->bucket_count;
  p->next = f->buckets[bucket];
  f->buckets[bucket] = p;
}

static void grow_buckets(struct dirty_file *f) {
  struct page **old = f->buckets;
  size_t old_count = f->bucket_count;
  f->bucket_count *= 4;
  f->buckets = calloc(f->bucket_count, sizeof *f->buckets);
  if (f->buckets == NULL) abort();
  for (size_t i = 0; i < old_count; i++) {
    for (struct page *p = old[i], *next; p != NULL; p = next) {
      next = p->next;
      insert_page(f, p);
    }
  }
  free(old);
}

static void free_pages(struct dirty_file *f) {
  for (size_t i = 0; i < f->bucket_count; i++) {
    for (struct page *p = f->buckets[i], *next; p != NULL; p = next) {
      next = p->next;
      free(p);
    }
    f->buckets[i] = NULL;
  }
  f->page_count = 0;
}

static void forget_dirty(const char *path) {
  for (struct dirty_file **link = &dirty_files; *link != NULL; link = &(*link)->next) {
    struct dirty_file *f = *link;
    if (strcmp(f->path, path) != 0) continue;
    *link = f->next;
    free_pages(f);
    free(f->buckets);
    free(f->path);
    free(f);
    return;
  }
}

/* The dirty state of a file, made on its first unsynced change from the backing file's size. */
static int dirty_state(const char *path, struct dirty_file **out) {
  struct dirty_file *f = find_dirty(path);
  if (f == NULL) {
    char *full = backing_path(path);
    struct stat st;
    int failed = lstat(full, &st);
    free(full);
    if (failed) return -errno;
    f = calloc(1, sizeof *f);
    if (f == NULL) abort();
    f->path = strdup(path);
    f->size = st.st_size;
    f->backing_valid = st.st_size;
    f->bucket_count = 64;
    f->buckets = calloc(f->bucket_count, sizeof *f->buckets);
    if (f->path == NULL || f->buckets == NULL) abort();
    f->next = dirty_files;
    dirty_files = f;
  }
  *out = f;
  return 0;
}

/* Reads the backing file's part of [offset, offset+length), zeros where it holds none. */
static int read_backing(const struct dirty_file *f, int fd, unsigned char *buf, size_t length,
                        off_t offset) {
  memset(buf, 0, length);
  off_t valid = f == NULL ? -1 : f->backing_valid;
  if (valid >= 0 && offset >= valid) return 0;
  size_t wanted = valid >= 0 && offset + (off_t)length > valid ? (size_t)(valid - offset) : length;
  size_t done = 0;
  while (done < wanted) {
    ssize_t n = pread(fd, buf + done, wanted - done, offset + done);
    if (n < 0) return -errno;
    if (n == 0) break;
    done += n;
  }
  return 0;
}

/* The dirty page at index, made from the file's current content if there is none yet. */
static int dirty_page(struct dirty_file *f, int fd, off_t index, struct page **out) {
  struct page *p = find_page(f, index);
  if (p == NULL) {
    p = malloc(sizeof *p);
    if (p == NULL) abort();
    p->index = index;
    off_t start = index * PAGE_SIZE;
    int error = read_backing(f, fd, p->data, PAGE_SIZE, start);
    if (error) {
      free(p);
      return error;
    }
    /* Bytes past the current end are not content: a later extension must read zeros there. */
    if (f->size < start + PAGE_SIZE)
      memset(p->data + (f->size > start ? f->size - start : 0), 0,
             PAGE_SIZE - (f->size > start ? f->size - start : 0));
    if (f->page_count + 1 > f->bucket_count * 2) grow_buckets(f);
    insert_page(f, p);
    f->page_count++;
  }
  *out = p;
  return 0;
}

static int set_size(struct dirty_file *f, off_t size) {
  if (size < f->size) {
    /* Pages wholly past the new end go; the part of the last one past it reads zeros. */
    for (size_t i = 0; i < f->bucket_count; i++) {
      for (struct page **link = &f->buckets[i]; *link != NULL;) {
        struct page *p = *link;
        off_t start = p->index * PAGE_SIZE;
        if (start >= size) {
          *link = p->next;
          free(p);
          f->page_count--;
          continue;
        }
        if (start + PAGE_SIZE > size) memset(p->data + (size - start), 0, start + PAGE_SIZE - size);
        link = &p->next;
      }
    }
    if (size < f->backing_valid) f->backing_valid = size;
  }
  f->size = size;
  return 0;
}

/* fsync: the file's dirty pages and size reach the backing file, which then is the file. */
static int sync_file(const char *path) {
  struct dirty_file *f = find_dirty(path);
  if (f == NULL) return 0;
  char *full = backing_path(path);
  int fd = open(full, O_WRONLY);
  free(full);
  if (fd < 0) return -errno;
  int error = 0;
  if (ftruncate(fd, f->backing_valid) < 0 || ftruncate(fd, f->size) < 0) error = -errno;
  for (size_t i = 0; i < f->bucket_count && !error; i++) {
    for (struct page *p = f->buckets[i]; p != NULL && !error; p = p->next) {
      off_t start = p->index * PAGE_SIZE;
      size_t length = f->size - start < PAGE_SIZE ? (size_t)(f->size - start) : PAGE_SIZE;
      if (pwrite(fd, p->data, length, start) != (ssize_t)length) error = errno ? -errno : -EIO;
    }
  }
  close(fd);
  if (!error) forget_dirty(path);
  return error;
}

static int lazy_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
  char *full = backing_path(path);
  int failed = lstat(full, st);
  free(full);
  if (failed) return -errno;
  struct dirty_file *f = find_dirty(path);
  if (f != NULL) {
    st->st_size = f->size;
    st->st_blocks = (f->size + 511) / 512;
  }
  return 0;
}

static int lazy_open_backing(const char *path, int flags, mode_t mode, struct fuse_file_info *fi) {
  /*
   * The backing file is read to fill dirty pages even when the program only writes, and the
   * program's O_TRUNC and O_APPEND are this filesystem's business, not the backing file's.
   */
  int access = flags & O_ACCMODE;
  int backing_flags = (flags & ~(O_ACCMODE | O_TRUNC | O_APPEND | O_SYNC | O_DSYNC)) |
                      (access == O_RDONLY ? O_RDONLY : O_RDWR);
  char *full = backing_path(path);
  int fd = open(full, backing_flags, mode);
  free(full);
  if (fd < 0) return -errno;
  if (flags & O_TRUNC && access != O_RDONLY) {
    struct dirty_file *f;
    int error = dirty_state(path, &f);
    if (error) {
      close(fd);
      return error;
    }
    set_size(f, 0);
  }
  fi->fh = fd;
  return 0;
}

static int lazy_open(const char *path, struct fuse_file_info *fi) {
  return lazy_open_backing(path, fi->flags, 0, fi);
}

static int lazy_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  return lazy_open_backing(path, fi->flags | O_CREAT, mode, fi);
}

static int lazy_read(const char *path, char *buf, size_t size, off_t offset,
                     struct fuse_file_info *fi) {
  struct dirty_file *f = find_dirty(path);
  if (f == NULL) {
    ssize_t n = pread(fi->fh, buf, size, offset);
    return n < 0 ? -errno : (int)n;
  }
  if (offset >= f->size) return 0;
  if (offset + (off_t)size > f->size) size = f->size - offset;
  int error = read_backing(f, fi->fh, (unsigned char *)buf, size, offset);
  if (error) return error;
  for (off_t index = offset / PAGE_SIZE; index * PAGE_SIZE < offset + (off_t)size; index++) {
    struct page *p = find_page(f, index);
    if (p == NULL) continue;
    off_t start = index * PAGE_SIZE;
    off_t from = start > offset ? start : offset;
    off_t to = start + PAGE_SIZE < offset + (off_t)size ? start + PAGE_SIZE : offset + (off_t)size;
    memcpy(buf + (from - offset), p->data + (from - start), to - from);
  }
  return (int)size;
}

static int lazy_write(const char *path, const char *buf, size_t size, off_t offset,
                      struct fuse_file_info *fi) {
  struct dirty_file *f;
  int error = dirty_state(path, &f);
  if (error) return error;
  for (off_t index = offset / PAGE_SIZE; index * PAGE_SIZE < offset + (off_t)size; index++) {
    struct page *p;
    error = dirty_page(f, fi->fh, index, &p);
    if (error) return error;
    off_t start = index * PAGE_SIZE;
    off_t from = start > offset ? start : offset;
    off_t to = start + PAGE_SIZE < offset + (off_t)size ? start + PAGE_SIZE : offset + (off_t)size;
    memcpy(p->data + (from - start), buf + (from - offset), to - from);
  }
  if (offset + (off_t)size > f->size) f->size = offset + size;
  if (fi->flags & (O_SYNC | O_DSYNC)) {
    error = sync_file(path);
    if (error) return error;
  }
  return (int)size;
}

static int lazy_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  (void)fi;
  struct dirty_file *f;
  int error = dirty_state(path, &f);
  return error ? error : set_size(f, size);
}

static int lazy_fallocate(const char *path, int mode, off_t offset, off_t length,
                          struct fuse_file_info *fi) {
  (void)fi;
  if (mode != 0) return -EOPNOTSUPP;
  struct dirty_file *f;
  int error = dirty_state(path, &f);
  if (error) return error;
  if (offset + length > f->size) f->size = offset + length;
  return 0;
}

static int lazy_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)datasync;
  (void)fi;
  struct stat st;
  if (fail_fsync_flag != NULL && stat(fail_fsync_flag, &st) == 0) return -EIO;
  return sync_file(path);
}

static int lazy_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path;
  (void)datasync;
  (void)fi;
  return 0;
}

static int lazy_flush(const char *path, struct fuse_file_info *fi) {
  (void)path;
  (void)fi;
  return 0; /* a close is no sync */
}

static int lazy_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close(fi->fh);
  return 0;
}

static int lazy_unlink(const char *path) {
  char *full = backing_path(path);
  int failed = unlink(full);
  free(full);
  if (failed) return -errno;
  forget_dirty(path);
  return 0;
}

static int lazy_rename(const char *from, const char *to, unsigned int flags) {
  if (flags) return -EINVAL;
  char *full_from = backing_path(from);
  char *full_to = backing_path(to);
  int failed = rename(full_from, full_to);
  free(full_from);
  free(full_to);
  if (failed) return -errno;
  forget_dirty(to);
  /* The moved file's (or directory's files') unsynced data moves with it. */
  size_t from_length = strlen(from);
  for (struct dirty_file *f = dirty_files; f != NULL; f = f->next) {
    if (strncmp(f->path, from, from_length) != 0) continue;
    if (f->path[from_length] != '\0' && f->path[from_length] != '/') continue;
    char *moved = malloc(strlen(to) + strlen(f->path + from_length) + 1);
    if (moved == NULL) abort();
    strcpy(moved, to);
    strcat(moved, f->path + from_length);
    free(f->path);
    f->path = moved;
  }
  return 0;
}

static int lazy_mkdir(const char *path, mode_t mode) {
  char *full = backing_path(path);
  int failed = mkdir(full, mode);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_rmdir(const char *path) {
  char *full = backing_path(path);
  int failed = rmdir(full);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  (void)fi;
  char *full = backing_path(path);
  int failed = chmod(full, mode);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  (void)fi;
  char *full = backing_path(path);
  int failed = lchown(full, uid, gid);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  (void)fi;
  char *full = backing_path(path);
  int failed = utimensat(AT_FDCWD, full, tv, AT_SYMLINK_NOFOLLOW);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_access(const char *path, int mask) {
  char *full = backing_path(path);
  int failed = access(full, mask);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_statfs(const char *path, struct statvfs *st) {
  (void)path;
  return statvfs(backing_root, st) ? -errno : 0;
}

static int lazy_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset,
                        struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)offset;
  (void)fi;
  (void)flags;
  char *full = backing_path(path);
  DIR *dir = opendir(full);
  free(full);
  if (dir == NULL) return -errno;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    struct stat st = {0};
    st.st_ino = entry->d_ino;
    st.st_mode = entry->d_type << 12;
    if (filler(buf, entry->d_name, &st, 0, 0)) break;
  }
  closedir(dir);
  return 0;
}

static int lazy_symlink(const char *target, const char *path) {
  char *full = backing_path(path);
  int failed = symlink(target, full);
  free(full);
  return failed ? -errno : 0;
}

static int lazy_readlink(const char *path, char *buf, size_t size) {
  char *full = backing_path(path);
  ssize_t n = readlink(full, buf, size - 1);
  free(full);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}

static int lazy_link(const char *from, const char *to) {
  char *full_from = backing_path(from);
  char *full_to = backing_path(to);
  int failed = link(full_from, full_to);
  free(full_from);
  free(full_to);
  return failed ? -errno : 0;
}

static void *lazy_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  /* Sizes and entries asked of this process every time: it alone knows the unsynced sizes. */
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->negative_timeout = 0;
  return NULL;
}

static const struct fuse_operations operations = {
    .init = lazy_init,
    .getattr = lazy_getattr,
    .open = lazy_open,
    .create = lazy_create,
    .read = lazy_read,
    .write = lazy_write,
    .truncate = lazy_truncate,
    .fallocate = lazy_fallocate,
    .fsync = lazy_fsync,
    .fsyncdir = lazy_fsyncdir,
    .flush = lazy_flush,
    .release = lazy_release,
    .unlink = lazy_unlink,
    .rename = lazy_rename,
    .mkdir = lazy_mkdir,
    .rmdir = lazy_rmdir,
    .chmod = lazy_chmod,
    .chown = lazy_chown,
    .utimens = lazy_utimens,
    .access = lazy_access,
    .statfs = lazy_statfs,
    .readdir = lazy_readdir,
    .symlink = lazy_symlink,
    .readlink = lazy_readlink,
    .link = lazy_link,
};

int main(int argc, char *argv[]) {
  if (argc != 3 && !(argc == 5 && strcmp(argv[3], "--fail-fsync-if") == 0)) {
    fprintf(stderr, "usage: %s <backing-dir> <mountpoint> [--fail-fsync-if <path>]\n", argv[0]);
    return 2;
  }
  backing_root = realpath(argv[1], NULL);
  if (backing_root == NULL) {
    perror(argv[1]);
    return 2;
  }
  if (argc == 5) fail_fsync_flag = argv[4];
  char *fuse_argv[] = {argv[0], argv[2], "-f", "-s", "-o", "fsname=lazyfs,subtype=lazyfs", NULL};
  return fuse_main(6, fuse_argv, &operations, NULL);
}
