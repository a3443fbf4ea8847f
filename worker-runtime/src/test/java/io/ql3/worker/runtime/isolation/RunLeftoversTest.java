package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which leftovers of a uid are found, in real directories (owned by the test's own uid) and fake
 * {@code /proc/sysvipc} tables, with the wall clock injected.
 */
class RunLeftoversTest {

  @TempDir Path tmp;

  private Path shared;
  private Path proc;
  private long me;
  private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
  private RunLeftovers leftovers;

  @BeforeEach
  void setUp() throws Exception {
    shared = Files.createDirectory(tmp.resolve("shared"));
    proc = Files.createDirectories(tmp.resolve("proc/sysvipc"));
    for (String t : List.of("shm", "msg", "sem")) {
      Files.writeString(
          proc.resolve(t), "       key      shmid perms  size  cpid  lpid nattch   uid\n");
    }
    me = (Integer) Files.getAttribute(shared, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    leftovers = new RunLeftovers(tmp.resolve("proc"), List.of(shared), now::get);
  }

  private void modified(Path dir, long millis) throws Exception {
    Files.setLastModifiedTime(dir, FileTime.fromMillis(millis));
  }

  /** Lists the shared directory with its modification time set to {@code millis}: none of mine. */
  private void listedEmptyAt(long millis) throws Exception {
    modified(shared, millis);
    assertThat(leftovers.of(me)).isEmpty();
  }

  @Test
  void findsTheEntriesTheUidOwnsAndNothingForAnotherUid() throws Exception {
    Files.writeString(shared.resolve("mine"), "x");

    assertThat(leftovers.of(me)).containsExactly(shared.resolve("mine").toString());
    assertThat(leftovers.of(me + 1)).isEmpty();
  }

  @Test
  void anEntryMadeAfterASettledListingIsFoundBecauseTheDirectoryChanged() throws Exception {
    listedEmptyAt(now.get() - 60_000); // remembered: settled, no entry of anybody

    Files.writeString(shared.resolve("late"), "x"); // sets the directory's modification time

    assertThat(leftovers.of(me)).containsExactly(shared.resolve("late").toString());
  }

  @Test
  void aSettledDirectoryIsNotListedAgainWhileItsModificationTimeStays() throws Exception {
    long old = now.get() - 60_000;
    listedEmptyAt(old);
    // An entry that appears with the directory's time put back (only root could do that): the
    // remembered listing still holds, which proves that the directory was not read again.
    Files.writeString(shared.resolve("hidden"), "x");
    modified(shared, old);

    assertThat(leftovers.of(me)).isEmpty();
  }

  @Test
  void aDirectoryChangedWithinTheMarginIsListedAgainEvenWithTheSameTime() throws Exception {
    long recent = now.get() - RunLeftovers.SETTLED_MS + 1; // one clock tick could still change it
    listedEmptyAt(recent);
    Files.writeString(shared.resolve("same-tick"), "x");
    modified(shared, recent);

    assertThat(leftovers.of(me)).containsExactly(shared.resolve("same-tick").toString());
  }

  @Test
  void aRememberedOwnerMeansTheDirectoryIsListedAgainForThatUid() throws Exception {
    Files.writeString(shared.resolve("mine"), "x");
    long old = now.get() - 60_000;
    modified(shared, old);
    assertThat(leftovers.of(me + 1)).isEmpty(); // remembered, with `me` among the owners

    assertThat(leftovers.of(me)).containsExactly(shared.resolve("mine").toString());
  }

  @Test
  void aSharedDirectoryThatIsALinkIsJudgedByItsTargetsTime() throws Exception {
    Path target = Files.createDirectory(tmp.resolve("run-shm"));
    Path link = Files.createSymbolicLink(tmp.resolve("shm-link"), target);
    RunLeftovers viaLink = new RunLeftovers(tmp.resolve("proc"), List.of(link), now::get);
    modified(target, now.get() - 60_000);
    Files.getFileAttributeView(link, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .setTimes(FileTime.fromMillis(now.get() - 60_000), null, null); // the link's own time
    assertThat(viaLink.of(me)).isEmpty(); // remembered; the link's own time never changes

    Files.writeString(target.resolve("late"), "x");

    assertThat(viaLink.of(me)).containsExactly(link.resolve("late").toString());
  }

  @Test
  void anotherDirectoryInThePlaceOfAListedOneIsListedEvenWithTheSameTime() throws Exception {
    long old = now.get() - 60_000;
    listedEmptyAt(old);
    Path other = Files.createDirectory(tmp.resolve("other"));
    Files.writeString(other.resolve("mine"), "x");
    Files.move(shared, tmp.resolve("moved-away"));
    Files.move(other, shared);
    modified(shared, old);

    assertThat(leftovers.of(me)).containsExactly(shared.resolve("mine").toString());
  }

  @Test
  void systemVObjectsOfTheUidAreFoundByTheirColumnsAndAHeaderAloneIsNothing() throws Exception {
    Files.writeString(
        proc.resolve("shm"),
        "       key      shmid perms  size  cpid  lpid nattch   uid\n"
            + "         0         17   600  4096   100   100      0 "
            + me
            + "\n"
            + "         0         18   600  4096   100   100      0 "
            + (me + 1)
            + "\n");
    Files.writeString(
        proc.resolve("sem"),
        "       key      semid perms      nsems   uid   gid\n"
            + "\t0\t5\t600\t1\t"
            + me
            + "\t"
            + me
            + "\n");

    assertThat(leftovers.of(me)).containsExactly("ipc-shm:17", "ipc-sem:5");
    assertThat(leftovers.of(me + 2)).isEmpty();
  }

  @Test
  void missingDirectoriesAndTablesAreNothing() throws Exception {
    RunLeftovers none =
        new RunLeftovers(tmp.resolve("no-proc"), List.of(tmp.resolve("absent")), now::get);

    assertThat(none.of(me)).isEmpty();
  }
}
