package io.ql3.worker.bench.contract;

import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunResult;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The contract's share of one run: decode a pull answer with its offers (JSON, every check, the
 * spec digests), encode the run's complete request and decode its answer. The pull answer is the
 * contract vector {@code responses/valid/pull-two-offers.json} (copied here verbatim), so each
 * operation covers two runs' offers. Meant for the edge agent's interpreter too: {@code -jvmArgs
 * "-Xint -XX:+UseSerialGC"} (docs/perf/edge.md, "Sixteenth pass").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RunContractBenchmark {
  private static final String PULL_TWO_OFFERS =
      """
      {
       "schema": "qinglong/worker-execution-pull@v1",
       "pullId": "01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f",
       "offers": [
        {
         "timeoutMs": 3600000,
         "specDigest": "sha256:38612d5af94abb443a53ad805d2b80831aa9c3acf76bdc2af507e121bda95d9d",
         "spec": {
          "env": {
           "QL3_RUN_ID": "run-20241203-000117",
           "LANG": "C.UTF-8",
           "GREETING": "gr\\u00fc\\u00df dich \\"du\\"\\\\n\\t"
          },
          "cwd": "jobs/0117",
          "argv": [
           "/opt/ql3/bin/build.sh",
           "--target",
           "release",
           "--label=caf\\u00e9 \\u2615 \\ud83d\\ude80"
          ]
         },
         "runId": "run-20241203-000117",
         "idempotencyKey": "ql3:run-20241203-000117#1",
         "executor": "process",
         "attempt": 1
        },
        {
         "timeoutMs": 600000,
         "specDigest": "sha256:c6b7175a54beb9ba3ef317c75de922d4b4d3cace1c4629666999205dcba99afd",
         "spec": {
          "env": {
           "SEP": "a\\u2028b"
          },
          "cwd": null,
          "argv": [
           "python3",
           "-c",
           "print('line\\\\u2028sep ok')"
          ]
         },
         "runId": "run-20241203-000118",
         "idempotencyKey": "ql3:run-20241203-000118#2",
         "executor": "process",
         "attempt": 2
        }
       ],
       "nextPullAfterMs": 0,
       "generation": 7
      }
      """;

  private byte[] pull;
  private byte[] completeAnswer;
  private CompleteRequest complete;

  @Setup
  public void setup() throws ContractViolation {
    pull = PULL_TWO_OFFERS.getBytes(StandardCharsets.UTF_8);
    PullResponse parsed = PullResponse.parse(pull);
    if (parsed.offers().size() != 2
        || parsed.offers().stream().anyMatch(o -> o.rejection().isPresent())) {
      throw new IllegalStateException("the vector no longer parses as two accepted offers");
    }
    complete = new CompleteRequest(1, null, 7, Outcome.SUCCEEDED, new RunResult(12, 0, 0, ""));
    completeAnswer =
        ("{\"attempt\":1,\"disposition\":\"accepted\",\"runId\":\"run-20241203-000117\","
                + "\"schema\":\"qinglong/worker-execution-complete@v1\"}")
            .getBytes(StandardCharsets.UTF_8);
  }

  @Benchmark
  public PullResponse decodePull() throws ContractViolation {
    return PullResponse.parse(pull);
  }

  @Benchmark
  public CompleteResponse completeExchange() throws ContractViolation {
    complete.toCanonicalBytes();
    return CompleteResponse.parse(completeAnswer);
  }
}
