package io.github.lockmanager.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The figures of one run, each next to its baseline, as a Markdown table. */
final class Report {
    record Row(String figure, String store, String ours, String baseline, double ratio, String note) {
    }

    private final List<Row> rows = new ArrayList<>();

    void add(String figure, String store, String ours, String baseline, double ratio, String note) {
        Row row = new Row(figure, store, ours, baseline, ratio, note);
        rows.add(row);
        System.out.printf(Locale.ROOT, "%-28s %-11s ours %-22s baseline %-22s ratio %8s  %s%n", figure, store,
                ours, baseline, ratio(ratio), note);
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    String table() {
        StringBuilder md = new StringBuilder();
        md.append("| Figure | Store | Ours | Baseline | Ratio (ours / baseline) | Notes |\n");
        md.append("|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", row.figure(), row.store(),
                    row.ours(), row.baseline(), ratio(row.ratio()), row.note()));
        }
        return md.toString();
    }

    /** Two decimals, or three significant digits for ratios below 0.01 (a hand-off is a thousandth of an interval). */
    static String ratio(double ratio) {
        if (Double.isNaN(ratio)) {
            return "-";
        }
        return ratio >= 0.01 ? String.format(Locale.ROOT, "%.2f", ratio) : String.format(Locale.ROOT, "%.3g", ratio);
    }

    /** Microseconds, or nanoseconds below one: an in-memory map operation would show as 0.0 µs. */
    static String micros(double nanos) {
        return nanos < 1_000 ? nanos(nanos) : String.format(Locale.ROOT, "%.1f µs", nanos / 1_000);
    }

    /** Processor time per cycle, as this JVM's and the rest of the machine's (see {@link CpuMeter}). */
    static String cpuSplit(CpuMeter.Reading perCycle) {
        return "this JVM " + micros(perCycle.jvmNanos()) + ", the rest of the machine "
                + micros(perCycle.machineNanos() - perCycle.jvmNanos());
    }

    /** A rate of operations per second. */
    static String perSecond(double rate) {
        return String.format(Locale.ROOT, "%.0f ops/s", rate);
    }

    static String nanos(double nanos) {
        return String.format(Locale.ROOT, "%.1f ns", nanos);
    }

    static String millis(double nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1_000_000);
    }
}
