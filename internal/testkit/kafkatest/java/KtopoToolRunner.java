import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;

/**
 * Runs many invocations of Kafka's command-line tools (TopicCommand and the
 * like) in one JVM, for ktopo's tests: a JVM start costs a second of CPU,
 * a warm invocation milliseconds.
 *
 * Requests on stdin, one per invocation: a line with the number of
 * arguments n, a line with the main class, then n lines, one argument each
 * (a newline inside an argument is written as the two characters \n).
 * Replies on stdout: the exit status, the captured stdout and stderr, each
 * as a 4-byte big-endian length followed by the bytes (the status as text).
 *
 * Kafka's Exit class (org.apache.kafka.common.utils.Exit, in 4.x
 * org.apache.kafka.common.utils.internals.Exit) lets a caller replace
 * System.exit: the tools' exits become an exception that ends the
 * invocation with its status.
 */
public final class KtopoToolRunner {
    /** An output stream whose target changes per invocation. */
    static final class Switch extends OutputStream {
        volatile OutputStream target = new ByteArrayOutputStream();

        @Override public void write(int b) { try { target.write(b); } catch (java.io.IOException e) { } }
        @Override public void write(byte[] b, int off, int len) { try { target.write(b, off, len); } catch (java.io.IOException e) { } }
    }

    /** Thrown in place of exiting the JVM. */
    static final class ExitCalled extends RuntimeException {
        final int code;
        ExitCalled(int code) { super(null, null, false, false); this.code = code; }
    }

    static volatile Integer exited;
    static final Switch out = new Switch(), err = new Switch();

    public static void main(String[] ignored) throws Exception {
        DataOutputStream reply = new DataOutputStream(new java.io.BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out)));
        // Installed before any Kafka or Scala class runs, so that Scala's
        // Console and the loggers capture these streams.
        System.setOut(new PrintStream(out, true, "UTF-8"));
        System.setErr(new PrintStream(err, true, "UTF-8"));
        // Kafka 4.0 moved Exit from common.utils to common.utils.internals.
        Class<?> exit;
        try {
            exit = Class.forName("org.apache.kafka.common.utils.internals.Exit");
        } catch (ClassNotFoundException e) {
            exit = Class.forName("org.apache.kafka.common.utils.Exit");
        }
        Class<?> procedure = Class.forName(exit.getName() + "$Procedure");
        Object throwing = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure}, (self, m, args) -> {
            if (m.getName().equals("execute")) {
                // The first exit ends the invocation, as it would end the
                // process: what runs after it (a catch that prints the
                // exception, a second exit) never happened in a real run.
                if (exited == null) {
                    exited = (Integer) args[0];
                    out.target = OutputStream.nullOutputStream();
                    err.target = OutputStream.nullOutputStream();
                }
                throw new ExitCalled((Integer) args[0]);
            }
            return m.getName().equals("hashCode") ? System.identityHashCode(self) : (m.getName().equals("equals") ? self == args[0] : "exit");
        });
        exit.getMethod("setExitProcedure", procedure).invoke(null, throwing);
        exit.getMethod("setHaltProcedure", procedure).invoke(null, throwing);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String count;
        while ((count = in.readLine()) != null) {
            int n = Integer.parseInt(count.trim());
            String mainClass = in.readLine();
            String[] args = new String[n];
            for (int i = 0; i < n; i++) {
                args[i] = in.readLine().replace("\\n", "\n");
            }
            ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
            out.target = o;
            err.target = e;
            exited = null;
            int code = 0;
            try {
                Method main = Class.forName(mainClass).getMethod("main", String[].class);
                main.invoke(null, (Object) args);
            } catch (InvocationTargetException ite) {
                Throwable t = ite.getCause();
                if (t instanceof ExitCalled) {
                    code = ((ExitCalled) t).code;
                } else {
                    t.printStackTrace(System.err);
                    code = 1;
                }
            } catch (ExitCalled ec) {
                code = ec.code;
            } catch (Throwable t) {
                t.printStackTrace(System.err);
                code = 1;
            }
            System.out.flush();
            System.err.flush();
            if (exited != null) {
                code = exited;
            }
            send(reply, Integer.toString(code).getBytes(StandardCharsets.UTF_8));
            send(reply, o.toByteArray());
            send(reply, e.toByteArray());
            reply.flush();
        }
    }

    static void send(DataOutputStream reply, byte[] b) throws java.io.IOException {
        reply.writeInt(b.length);
        reply.write(b);
    }
}
