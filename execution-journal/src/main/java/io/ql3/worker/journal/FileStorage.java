package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** {@link Storage} on a real directory with FileChannel, fsync and atomic rename. */
final class FileStorage implements Storage {
  private final Path dir;

  FileStorage(Path dir) {
    this.dir = dir;
  }

  @Override
  public List<String> list() throws IOException {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        if (Files.isRegularFile(p)) {
          names.add(p.getFileName().toString());
        }
      }
    }
    return names;
  }

  @Override
  public StorageFile open(String name, boolean create) throws IOException {
    FileChannel ch =
        create
            ? FileChannel.open(
                dir.resolve(name),
                StandardOpenOption.READ,
                StandardOpenOption.WRITE,
                StandardOpenOption.CREATE,
                LinkOption.NOFOLLOW_LINKS)
            : FileChannel.open(
                dir.resolve(name),
                StandardOpenOption.READ,
                StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
    return new ChannelFile(ch);
  }

  @Override
  public void rename(String from, String to) throws IOException {
    Files.move(
        dir.resolve(from),
        dir.resolve(to),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void delete(String name) throws IOException {
    Files.deleteIfExists(dir.resolve(name));
  }

  @Override
  public void syncDirectory() throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  @Override
  public long usableSpace() throws IOException {
    return Files.getFileStore(dir).getUsableSpace();
  }

  private static final class ChannelFile implements StorageFile {
    private final FileChannel ch;

    ChannelFile(FileChannel ch) {
      this.ch = ch;
    }

    @Override
    public int read(ByteBuffer dst, long pos) throws IOException {
      int total = 0;
      while (dst.hasRemaining()) {
        int n = ch.read(dst, pos + total);
        if (n < 0) {
          return total == 0 ? -1 : total;
        }
        total += n;
      }
      return total;
    }

    @Override
    public void write(ByteBuffer src, long pos) throws IOException {
      long p = pos;
      while (src.hasRemaining()) {
        p += ch.write(src, p);
      }
    }

    @Override
    public void force(boolean metadata) throws IOException {
      ch.force(metadata);
    }

    @Override
    public long size() throws IOException {
      return ch.size();
    }

    @Override
    public void close() throws IOException {
      ch.close();
    }
  }
}
