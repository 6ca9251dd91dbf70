// The test process's own TMPDIR. Before main, a folder is made under the TMPDIR the process was given
// (mode 0755, like /tmp: a test runs a copy of bench as another user from it) and TMPDIR points at it,
// so everything the tests and the libraries under them put in "the temporary directory" is in one place
// of this process's own. At exit, what FoundationNetworking leaves there is removed: a failed download's
// partial body, named <UUID>.tmp, which it never deletes and whose path no API gives. Then the folder
// goes if it is empty; anything else a test left stays, for `make test`'s check to name.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char own_tmpdir[PATH_MAX];

// "0C1D6959-FD86-4537-8F93-C4CB3E16AECB.tmp": FoundationNetworking's NSUUID().uuidString + ".tmp".
static int is_download_body(const char *name) {
    static const char shape[] = "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX.tmp";
    if (strlen(name) != sizeof shape - 1) return 0;
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        if (shape[i] == 'X' ? !isxdigit((unsigned char)name[i]) || islower((unsigned char)name[i])
                            : name[i] != shape[i])
            return 0;
    }
    return 1;
}

static void remove_download_bodies(void) {
    if (own_tmpdir[0] == 0) return;
    DIR *folder = opendir(own_tmpdir);
    if (folder == NULL) return;
    char path[PATH_MAX];
    for (struct dirent *entry; (entry = readdir(folder)) != NULL;) {
        if (!is_download_body(entry->d_name)) continue;
        if (snprintf(path, sizeof path, "%s/%s", own_tmpdir, entry->d_name) < (int)sizeof path) unlink(path);
    }
    closedir(folder);
    rmdir(own_tmpdir);  // only when empty
}

__attribute__((constructor)) static void use_own_tmpdir(void) {
    const char *given = getenv("TMPDIR");
    if (given == NULL || given[0] == 0) given = "/tmp";
    if (snprintf(own_tmpdir, sizeof own_tmpdir, "%s/bench-tests-%d-XXXXXX", given, (int)getpid())
            >= (int)sizeof own_tmpdir
        || mkdtemp(own_tmpdir) == NULL) {
        own_tmpdir[0] = 0;  // the given TMPDIR, as before
        return;
    }
    chmod(own_tmpdir, 0755);
    setenv("TMPDIR", own_tmpdir, 1);
    atexit(remove_download_bodies);
}
