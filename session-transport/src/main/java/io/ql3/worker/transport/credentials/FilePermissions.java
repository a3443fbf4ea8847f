package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/** Secret files (key, token) must not be readable or writable by others; group-readable is only a warning. */
final class FilePermissions {
    private FilePermissions() {}

    /** @return true when the file is group-readable (the caller warns once) */
    static boolean checkSecret(Path path, String what) throws CredentialException {
        Set<PosixFilePermission> p;
        try {
            p = Files.getPosixFilePermissions(path);
        } catch (UnsupportedOperationException e) {
            return false; // not a POSIX file system: nothing to check
        } catch (IOException e) {
            throw new CredentialException(Reason.FILE_UNREADABLE, what + " " + path + ": " + e.getMessage(), e);
        }
        if (p.contains(PosixFilePermission.OTHERS_READ) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new CredentialException(Reason.INSECURE_PERMISSIONS,
                    what + " " + path + " is readable or writable by others (" + java.nio.file.attribute.PosixFilePermissions.toString(p)
                            + "); chmod 600 it");
        }
        if (p.contains(PosixFilePermission.GROUP_WRITE)) {
            throw new CredentialException(Reason.INSECURE_PERMISSIONS,
                    what + " " + path + " is writable by its group; chmod 600 it");
        }
        return p.contains(PosixFilePermission.GROUP_READ);
    }
}
