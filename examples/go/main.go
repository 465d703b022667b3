// The Go quick start (docs/clients/go.md) with grpc-go, as a program that
// checks what it shows: the first call, a watched solve drawn by the proto's
// recipe and resumed with Watch, a game played by hints, the errors a client
// handles, and retries as the published service config says. run.sh builds
// it with Debian bookworm's Go and grpc-go and runs it against a service of
// its own; CI runs run.sh.
//
//	SUDOKU_ADDR  the gRPC port (default 127.0.0.1:50051)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/ioutil"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	sudokuv1 "sudoku-service/gen/go/sudoku/v1"
)

const (
	wikipedia = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
	hard      = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
)

// codec marshals with google.golang.org/protobuf. grpc-go marshals with
// github.com/golang/protobuf, and its 1.3 (Debian bookworm's, in GOPATH
// mode) panics on messages from today's protoc-gen-go; with Go modules,
// grpc-go brings 1.4 or newer and this is not needed.
type codec struct{}

func (codec) Marshal(v interface{}) ([]byte, error)   { return proto.Marshal(v.(proto.Message)) }
func (codec) Unmarshal(b []byte, v interface{}) error { return proto.Unmarshal(b, v.(proto.Message)) }
func (codec) Name() string                            { return "proto" }
func (codec) String() string                          { return "proto" }

var passed, failed int

func check(what string, ok bool, detail string) {
	word := "ok"
	if ok {
		passed++
	} else {
		failed++
		word = "FAILED"
	}
	if detail != "" {
		what += ": " + detail
	}
	fmt.Printf("%s - %s\n", word, what)
}

// dial opens a channel with the published service config: UNAVAILABLE
// retried with backoff (grpc-go before 1.40 only with GRPC_GO_RETRY=on),
// a deadline for unary calls.
func dial(addr string) (*grpc.ClientConn, error) {
	config, err := ioutil.ReadFile("../../proto/sudoku/v1/sudoku_grpc_service_config.json")
	if err != nil {
		return nil, err
	}
	return grpc.Dial(addr,
		grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(string(config)),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(codec{})),
	)
}

// drawing is the board as a client draws it, by the proto's recipe.
type drawing [81]byte

func (d *drawing) apply(f *sudokuv1.Frame) {
	for _, bytes := range [][]byte{f.GetSteps(), f.GetChanges()} {
		for i := 0; i+1 < len(bytes); i += 2 {
			d[bytes[i]] = '.'
			if bytes[i+1] != 0 {
				d[bytes[i]] = '0' + bytes[i+1]
			}
		}
	}
	if f.GetBoard() != "" { // a keyframe replaces the drawing
		copy(d[:], f.GetBoard())
	}
}

// frames are a message's frame and, with runs, its next_frames.
func frames(m *sudokuv1.Frame) []*sudokuv1.Frame {
	return append([]*sudokuv1.Frame{m}, m.GetNextFrames()...)
}

func isSolution(board, puzzle string) bool {
	if len(board) != 81 {
		return false
	}
	for i := 0; i < 81; i++ {
		if board[i] < '1' || board[i] > '9' || (puzzle[i] != '.' && puzzle[i] != board[i]) {
			return false
		}
	}
	for k := 0; k < 9; k++ {
		row, col, box := map[byte]bool{}, map[byte]bool{}, map[byte]bool{}
		for j := 0; j < 9; j++ {
			row[board[k*9+j]] = true
			col[board[j*9+k]] = true
			box[board[(k/3*3+j/3)*9+k%3*3+j%3]] = true
		}
		if len(row) != 9 || len(col) != 9 || len(box) != 9 {
			return false
		}
	}
	return true
}

func cellName(cell int32) string { return fmt.Sprintf("r%dc%d", cell/9+1, cell%9+1) }

func firstCall(ctx context.Context, client sudokuv1.SudokuClient) error {
	reply, err := client.CountSolutions(ctx, &sudokuv1.CountRequest{Board: wikipedia, Limit: 2})
	if err != nil {
		return err
	}
	check("CountSolutions", reply.GetVerdict() == sudokuv1.CountReply_VERDICT_UNIQUE,
		fmt.Sprintf("%v, %d solution", reply.GetVerdict(), reply.GetCount()))
	return nil
}

func watchedSolve(ctx context.Context, client sudokuv1.SudokuClient) error {
	var d drawing
	var jobID string
	var lastSeq uint64
	gaps := 0
	broken, stop := context.WithCancel(ctx)
	stream, err := client.Solve(broken, &sudokuv1.SolveRequest{
		Board: hard, View: sudokuv1.View_VIEW_SEARCH,
		Pacing: &sudokuv1.Pacing{DurationMs: 1500, Fps: 30},
	})
	if err != nil {
		stop()
		return err
	}
	for lastSeq < 10 { // then the phone goes into a tunnel
		m, err := stream.Recv()
		if err != nil {
			stop()
			return err
		}
		for _, f := range frames(m) {
			if f.GetSeq() != lastSeq+1 {
				gaps++
			}
			d.apply(f)
			lastSeq = f.GetSeq()
			if f.GetJobId() != "" {
				jobID = f.GetJobId()
			}
		}
	}
	stop()
	check("Solve: frames 1..10 drawn, then the stream broken off", gaps == 0, "job "+jobID)

	watch, err := client.Watch(ctx, &sudokuv1.WatchRequest{JobId: jobID, AfterSeq: lastSeq})
	if err != nil {
		return err
	}
	var last *sudokuv1.Frame
	for first := true; ; first = false {
		m, err := watch.Recv()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		if first {
			check("Watch: the first frame is the next seq, with the job and a board",
				m.GetSeq() == lastSeq+1 && m.GetJob() != nil && m.GetBoard() != "", "")
		}
		for _, f := range frames(m) {
			if f.GetSeq() != lastSeq+1 {
				gaps++
			}
			d.apply(f)
			lastSeq = f.GetSeq()
			last = f
		}
	}
	check("Watch: played to the end without a gap",
		last != nil && last.GetOutcome() == sudokuv1.Outcome_OUTCOME_SOLVED && gaps == 0,
		fmt.Sprintf("%d frames, %d steps", lastSeq, last.GetCounters().GetSteps()))
	check("the drawing is the solution", last != nil && string(d[:]) == last.GetSolution() && isSolution(string(d[:]), hard), "")
	return nil
}

func gameByHints(ctx context.Context, client sudokuv1.SudokuClient) error {
	entries := []byte(strings.Repeat(".", 81))
	entries[strings.IndexByte(wikipedia, '.')] = '2' // breaks no rule, but r1c3 is 4
	moves, wrong := 0, ""
	for turn := 0; turn < 100; turn++ {
		hint, err := client.Hint(ctx, &sudokuv1.HintRequest{Givens: wikipedia, Entries: string(entries)})
		if err != nil {
			return err
		}
		switch hint.GetKind() {
		case sudokuv1.HintReply_KIND_SOLVED:
			turn = 100
		case sudokuv1.HintReply_KIND_WRONG_ENTRY:
			for _, cell := range hint.GetWrong().GetCells() {
				entries[cell] = '.'
				wrong = fmt.Sprintf("%s should be %d", cellName(cell), hint.GetWrong().GetShouldBe())
			}
		case sudokuv1.HintReply_KIND_NEXT_MOVE:
			entries[hint.GetMove().GetCell()] = byte('0' + hint.GetMove().GetValue())
			moves++
		default:
			return fmt.Errorf("unexpected hint %v", hint.GetKind())
		}
	}
	board := []byte(wikipedia)
	for i, c := range entries {
		if c != '.' {
			board[i] = c
		}
	}
	check("a game by hints ends solved", isSolution(string(board), wikipedia), fmt.Sprintf("%d moves; caught: %s", moves, wrong))
	check("the wrong entry was named", wrong == "r1c3 should be 4", wrong)
	return nil
}

func errorCases(ctx context.Context, client sudokuv1.SudokuClient) {
	_, err := client.CountSolutions(ctx, &sudokuv1.CountRequest{Board: strings.Replace(wikipedia, ".", "x", 1)})
	s := status.Convert(err)
	check("a bad board is INVALID_ARGUMENT naming the cell",
		s.Code() == codes.InvalidArgument && strings.Contains(s.Message(), "cell r1c3"), s.Message())

	watchCode := func(jobID string) *status.Status {
		stream, err := client.Watch(ctx, &sudokuv1.WatchRequest{JobId: jobID})
		if err == nil {
			_, err = stream.Recv()
		}
		return status.Convert(err)
	}
	s = watchCode("not-a-job")
	check("a malformed job_id is INVALID_ARGUMENT, not NOT_FOUND", s.Code() == codes.InvalidArgument, s.Message())
	s = watchCode(strings.Repeat("0", 32))
	check("an unknown job_id is NOT_FOUND", s.Code() == codes.NotFound, s.Message())

	retries()
}

// flaky answers GetLimits UNAVAILABLE twice, then with limits; Hint always
// RESOURCE_EXHAUSTED. It stands for a service restarting, in this process,
// so that the retries grpc-go makes from the service config can be counted.
type flaky struct {
	sudokuv1.UnimplementedSudokuServer
	limits, hints int32
}

func (f *flaky) GetLimits(context.Context, *sudokuv1.GetLimitsRequest) (*sudokuv1.Limits, error) {
	if atomic.AddInt32(&f.limits, 1) <= 2 {
		return nil, status.Error(codes.Unavailable, "restarting")
	}
	return &sudokuv1.Limits{MaxFps: 60}, nil
}

func (f *flaky) Hint(context.Context, *sudokuv1.HintRequest) (*sudokuv1.HintReply, error) {
	atomic.AddInt32(&f.hints, 1)
	return nil, status.Error(codes.ResourceExhausted, "queue full")
}

func retries() {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		check("listen", false, err.Error())
		return
	}
	server := grpc.NewServer(grpc.CustomCodec(codec{}))
	f := &flaky{}
	sudokuv1.RegisterSudokuServer(server, f)
	go server.Serve(listener)
	defer server.Stop()
	conn, err := dial(listener.Addr().String())
	if err != nil {
		check("dial", false, err.Error())
		return
	}
	defer conn.Close()
	client := sudokuv1.NewSudokuClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started := time.Now()
	limits, err := client.GetLimits(ctx, &sudokuv1.GetLimitsRequest{})
	check("UNAVAILABLE is retried with backoff (service config)", err == nil && limits.GetMaxFps() == 60 &&
		atomic.LoadInt32(&f.limits) == 3, fmt.Sprintf("%d attempts in %.2f s", f.limits, time.Since(started).Seconds()))
	_, err = client.Hint(ctx, &sudokuv1.HintRequest{Givens: wikipedia})
	check("RESOURCE_EXHAUSTED is not retried", status.Code(err) == codes.ResourceExhausted &&
		atomic.LoadInt32(&f.hints) == 1, fmt.Sprintf("%d attempt", f.hints))
}

func run() error {
	addr := os.Getenv("SUDOKU_ADDR")
	if addr == "" {
		addr = "127.0.0.1:50051"
	}
	conn, err := dial(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	client := sudokuv1.NewSudokuClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, step := range []func(context.Context, sudokuv1.SudokuClient) error{firstCall, watchedSolve, gameByHints} {
		if err := step(ctx, client); err != nil {
			return err
		}
	}
	errorCases(ctx, client)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Println("go example:", err)
		failed++
	}
	fmt.Printf("examples/go: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
