#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat(2)` says about a file that alertd decides on: which file it
/// is, its type, its permission bits and its owner.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// `symbolicLink` only from ``link(_:)``, which does not follow one.
        case regular, directory, symbolicLink, other
    }

    /// Which file it is (device and inode): the same through every name and
    /// descriptor of it, so a path or a descriptor number reused for another
    /// file since is told apart.
    package struct Identity: Sendable, Hashable {
        package let device: UInt64
        package let inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    package let identity: Identity
    package let kind: Kind
    /// The permission bits alone, e.g. `0o640`.
    package let permissions: UInt32
    /// The owner's user id.
    package let owner: UInt32
    /// Its length in bytes.
    package let size: Int64

    private init(_ st: stat) {
        identity = Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        permissions = UInt32(st.st_mode) & 0o7777
        owner = UInt32(st.st_uid)
        size = Int64(st.st_size)
    }

    /// `stat(2)`: the file `path` names, symlinks followed.
    package static func of(_ path: String) -> Result<FileStatus, Errno> {
        var st = stat()
        return stat(path, &st) == 0 ? .success(FileStatus(st)) : .failure(.current)
    }

    /// `lstat(2)`: the entry `path` names itself, a symbolic link not followed.
    package static func link(_ path: String) -> Result<FileStatus, Errno> {
        var st = stat()
        return lstat(path, &st) == 0 ? .success(FileStatus(st)) : .failure(.current)
    }

    /// `fstat(2)`: the file open on `fd`, so what was checked is what is read.
    package static func of(descriptor fd: Int32) -> Result<FileStatus, Errno> {
        var st = stat()
        return fstat(fd, &st) == 0 ? .success(FileStatus(st)) : .failure(.current)
    }

    /// Group or others may write it: someone besides its owner can replace its content.
    package var isWritableByOthers: Bool { permissions & 0o022 != 0 }

    /// Its owner is the user alertd runs as (the effective user id).
    package var isOwnedByThisProcess: Bool { owner == CurrentProcess.effectiveUserID }

    /// Every user on the machine may read it.
    package var isReadableByEveryone: Bool { permissions & 0o004 != 0 }

    /// Every user may write it (`o+w`).
    package var isWritableByEveryone: Bool { permissions & 0o002 != 0 }

    /// The permission bits as `chmod` takes them, e.g. `0644`.
    package var octal: String { FileMode.octal(permissions) }
}
