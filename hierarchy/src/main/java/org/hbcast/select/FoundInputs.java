package org.hbcast.select;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hbcast.plan.MemoryKind;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.TuningInputs;

/**
 * What rank 0 found at create (its host's fingerprint, the tuning table's and calibration's paths and
 * raw contents, what earlier runs learnt, already read, and the warnings of reading them), and the
 * bytes it broadcasts them in. A plain binary layout, not JSON: the other ranks decode it in
 * microseconds, where the JSON library's first use cost each of them about a second at create on one
 * node x 4 (four JVMs loading and compiling it on two cores). So on a fresh machine no rank needs the
 * JSON library at create, and with only the learnt plans (what every run with trials leaves) only
 * rank 0 does. The table and calibration, which only {@code scripts/tune} writes, still go as JSON.
 *
 * <pre>
 * MAGIC int, then: host (cpuModel, cpus, gpuModel, gpus, mpiVersion), links (count, each), layout,
 * tablePath?, table?, requested, calibrationPath?, calibration?, warnings (count, each),
 * learntPath?, learnt? (formatVersion, fingerprintId, created, verdicts (count, each: sizeClass,
 * memory (the kind's ordinal, a byte), choice, seconds))
 * </pre>
 *
 * A string is its UTF-8 length (int) and bytes, an array its length and bytes; {@code ?} marks a
 * field that may be null, written as length (or count) -1.
 */
record FoundInputs(
        Fingerprint fingerprint,
        String tablePath,
        byte[] table,
        boolean requested,
        String calibrationPath,
        byte[] calibration,
        List<String> warnings,
        String learntPath,
        LearntPlans learnt) {
    /** "HBFOUND1" cut to an int: a packet of another layout fails to decode instead of misreading. */
    static final int MAGIC = 0x48424631;

    /** The inputs every rank makes of it, the same on each. */
    TuningInputs inputs() {
        return TuningInputs.fromFiles(
                        fingerprint, path(tablePath), table, requested, path(calibrationPath), calibration, warnings)
                .withLearnt(path(learntPath), learnt, null);
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            HostInfo host = fingerprint.host();
            string(out, host.cpuModel());
            out.writeInt(host.cpus());
            string(out, host.gpuModel());
            out.writeInt(host.gpus());
            string(out, host.mpiVersion());
            strings(out, fingerprint.links());
            string(out, fingerprint.layout());
            string(out, tablePath);
            array(out, table);
            out.writeBoolean(requested);
            string(out, calibrationPath);
            array(out, calibration);
            strings(out, warnings);
            string(out, learntPath);
            learnt(out, learnt);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** The inputs {@link #encode} wrote; an IOException names a packet that is not one. */
    static FoundInputs decode(byte[] packet) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(packet));
        if (in.readInt() != MAGIC) {
            throw new IOException("not a packet of tuning inputs (" + packet.length + " bytes)");
        }
        HostInfo host = new HostInfo(string(in), in.readInt(), string(in), in.readInt(), string(in));
        Fingerprint fingerprint = new Fingerprint(host, strings(in), string(in));
        FoundInputs found = new FoundInputs(
                fingerprint,
                string(in),
                array(in),
                in.readBoolean(),
                string(in),
                array(in),
                strings(in),
                string(in),
                learnt(in));
        if (in.available() != 0) {
            throw new IOException("tuning inputs with " + in.available() + " bytes left over");
        }
        return found;
    }

    private static void learnt(DataOutputStream out, LearntPlans learnt) throws IOException {
        if (learnt == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(learnt.formatVersion());
        string(out, learnt.fingerprintId());
        string(out, learnt.created());
        out.writeInt(learnt.verdicts().size());
        for (LearntPlans.Verdict v : learnt.verdicts()) {
            out.writeInt(v.sizeClass());
            out.writeByte(v.memory().ordinal());
            string(out, v.choice());
            out.writeDouble(v.seconds());
        }
    }

    private static LearntPlans learnt(DataInputStream in) throws IOException {
        int version = in.readInt();
        if (version == -1) {
            return null;
        }
        String fingerprintId = string(in);
        String created = string(in);
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("tuning inputs with " + n + " learnt verdicts, " + in.available() + " bytes left");
        }
        List<LearntPlans.Verdict> verdicts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int sizeClass = in.readInt();
            int memory = in.readByte();
            if (memory < 0 || memory >= MemoryKind.values().length) {
                throw new IOException("a learnt verdict of memory kind " + memory);
            }
            verdicts.add(new LearntPlans.Verdict(sizeClass, MemoryKind.values()[memory], string(in), in.readDouble()));
        }
        return new LearntPlans(version, fingerprintId, created, verdicts);
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        array(out, s == null ? null : s.getBytes(StandardCharsets.UTF_8));
    }

    private static void array(DataOutputStream out, byte[] a) throws IOException {
        if (a == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(a.length);
        out.write(a);
    }

    private static void strings(DataOutputStream out, List<String> list) throws IOException {
        out.writeInt(list.size());
        for (String s : list) {
            string(out, s);
        }
    }

    private static String string(DataInputStream in) throws IOException {
        byte[] a = array(in);
        return a == null ? null : new String(a, StandardCharsets.UTF_8);
    }

    private static byte[] array(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < -1 || n > in.available()) {
            throw new IOException("tuning inputs with a field of " + n + " bytes, " + in.available() + " left");
        }
        if (n < 0) {
            return null;
        }
        return in.readNBytes(n);
    }

    private static List<String> strings(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("tuning inputs with a list of " + n + " strings, " + in.available() + " bytes left");
        }
        List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String s = string(in);
            if (s == null) {
                throw new IOException("tuning inputs with a null string in a list");
            }
            list.add(s);
        }
        return list;
    }

    private static Path path(String s) {
        return s == null ? null : Path.of(s);
    }
}
