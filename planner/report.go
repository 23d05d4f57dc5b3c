package planner

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/conversion"
)

// The three renderings of a Result: text for people, JSON for programs
// (docs/plan-format.md), DOT for pictures. Each only prints what Plan
// computed.

// printable is s, or s quoted where it holds a character that does not
// print (a newline in a graph's name would start a line of its own in the
// report).
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// graphTitle is how a report names the graph: its name (quoted where it
// holds what does not print), or "an unnamed graph" when it has none (the
// planner does not know the file it came from).
func graphTitle(name string) string {
	if name == "" {
		return "an unnamed graph"
	}
	return printable(name)
}

// WriteText writes the human-readable report: the summary, then every
// invocation with its choice and each rejected alternative's regret and
// reason, then every boundary's conversion, then the budgets.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "plan of %s on %s\n\n", graphTitle(r.Graph), printable(r.Target))
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	status := r.Status.String()
	switch {
	case r.Status == Optimal && r.BoundFrom != "":
		status += " within the gap allowed"
	case r.Status == Optimal:
		status += " (proven)"
	}
	gap := r.Gap
	if gap < 1e-9 {
		gap = 0 // rounding in the bound's last digits
	}
	from := ""
	switch r.BoundFrom {
	case BoundMILP:
		from = " (HiGHS's)"
	case BoundRootLP:
		from = " (the LP relaxation's)"
	case BoundSearch:
		from = " (the branch and bound's)"
	case BoundFloor:
		from = " (the execution floor: no bound proven yet)"
	}
	fmt.Fprintf(tw, "status\t%s; bound %s%s, gap %.3g%%\n", status, fmtNS(r.BoundNS), from, 100*gap)
	fmt.Fprintf(tw, "total\t%s = execution %s + conversions %s\n", fmtNS(r.ObjectiveNS), fmtNS(r.ExecutionNS), fmtNS(r.ConversionNS))
	switch {
	case r.LocalChoiceNS == nil:
		fmt.Fprintf(tw, "local choice\tinfeasible (the locally cheapest alternatives, each boundary by its cheapest mechanism): %s\n", violationsText(r.LocalChoiceViolations))
	case *r.SavingNS > 0:
		fmt.Fprintf(tw, "local choice\t%s; planning jointly saves %s (%.1f%%)\n", fmtNS(*r.LocalChoiceNS), fmtNS(*r.SavingNS), 100**r.SavingNS / *r.LocalChoiceNS)
	default:
		fmt.Fprintf(tw, "local choice\t%s; the locally cheapest choices are jointly optimal\n", fmtNS(*r.LocalChoiceNS))
	}
	for _, c := range r.KernelConflicts {
		fmt.Fprintf(tw, "kernels	warning: %s\n", c)
	}
	for _, c := range r.KernelOrder {
		fmt.Fprintf(tw, "kernels	kept in an order: the cheaper plan where %s has no order of kernels\n", c)
	}
	m := r.Model
	left := "to HiGHS (MILP of"
	if cs := r.CoreSearch; cs != nil && cs.Proved {
		left = "to the branch and bound (as a MILP,"
	}
	contracted := ""
	switch m.ContractedKernels {
	case 0:
	case 1:
		contracted = " (1 kernel contracted over its budgets first)"
	default:
		contracted = fmt.Sprintf(" (%d kernels contracted over their budgets first)", m.ContractedKernels)
	}
	fmt.Fprintf(tw, "model\t%s, %s left; the exact reduction eliminated %d of the invocations%s, leaving %d %s %s, %s; the whole model: %s, %s)\n",
		count(m.Invocations, "invocation"), count(m.Alternatives, "alternative"), m.Eliminated, contracted, m.Core, left,
		count(m.Solved.Columns, "column"), count(m.Solved.Rows, "row"), count(m.Whole.Columns, "column"), count(m.Whole.Rows, "row"))
	solve := fmt.Sprintf("HiGHS: %s", count(r.MILPNodes, "branch-and-bound node"))
	switch cs := r.CoreSearch; {
	case m.Core == 0 && m.Solved.Columns == 0:
		solve = "no MILP: the reduction solved the whole model"
	case cs != nil && cs.Proved && r.BoundFrom != "":
		solve = fmt.Sprintf("the branch and bound proved the core's plan within the gap allowed in %s", count(cs.Nodes, "search node"))
	case cs != nil && cs.Proved:
		solve = fmt.Sprintf("the branch and bound proved the core's optimum in %s", count(cs.Nodes, "search node"))
	case cs != nil:
		solve = fmt.Sprintf("the branch and bound searched %s without a proof; then HiGHS, from its plan: %s", count(cs.Nodes, "node"), count(r.MILPNodes, "branch-and-bound node"))
	}
	if r.SolveMS > 0 {
		fmt.Fprintf(tw, "solve\t%s, %s\n", fmtMS(r.SolveMS), solve)
	} else {
		fmt.Fprintf(tw, "solve\t%s\n", solve)
	}
	tw.Flush()

	fmt.Fprintf(bw, "\ninvocations (chosen alternative, cost, origin; then each rejected one: regret, why)\n")
	switch {
	case r.Status != Optimal:
		fmt.Fprintf(bw, "  (no regrets: they are measured from the proven optimum, and the solve stopped before proving it)\n")
	case r.Explained == 0 && r.Gap > 0 && r.BoundFrom != "":
		fmt.Fprintf(bw, "  (no regrets: they are measured from the proven optimum, and the plan is proven only within the gap allowed, %.3g%%)\n", 100*r.Gap)
	case r.Explained < len(r.Choices) && !r.explainAsked && r.explainAll > 0 && len(r.Choices) > r.explainAll:
		fmt.Fprintf(bw, "  (no regrets: a graph of more than %d invocations is explained only where --explain ID,… asks)\n", r.explainAll)
	case r.Explained < len(r.Choices):
		var named []string
		for _, c := range r.Choices {
			if !c.NotExplained && len(named) <= maxNamedExplained {
				named = append(named, c.Invocation)
			}
		}
		list := strings.Join(named, ", ")
		if len(named) > maxNamedExplained {
			list = strings.Join(named[:maxNamedExplained], ", ") + ", …"
		}
		if len(named) > 0 {
			list = ": " + list
		}
		fmt.Fprintf(bw, "  (regrets computed for %d of %d invocations%s; --explain ID,… names others)\n", r.Explained, len(r.Choices), list)
	}
	if r.UnprovenRegrets > 0 {
		what := "regrets"
		if r.UnprovenRegrets == 1 {
			what = "regret"
		}
		cause := "the regrets' time limit stopped the re-solves (--regret-time-limit)"
		switch r.UnprovenBy {
		case UnprovenByInterrupt:
			cause = "an interrupt stopped the re-solves"
		case UnprovenByWorkLimit:
			cause = "the regrets' work budget, a multiple of the plan's own work (its search's, or HiGHS's simplex iterations; --regret-time-limit auto), stopped the searches and re-solves, the same every run"
		case UnprovenByRegretSolves:
			cause = fmt.Sprintf("re-solved only the %d queries whose plans found so far cost least (--regret-solves)", r.regretSolves)
		}
		fmt.Fprintf(bw, "  (%d %s unproven: %s; shown is what is proven: +lower…+upper, ≥+lower where no plan using the alternative was found, or unproven)\n", r.UnprovenRegrets, what, cause)
	}
	// The lines of invocations and boundaries, as many as the graph has,
	// are appended to one buffer without fmt; the padding counts runes, as
	// fmt's widths do.
	var b []byte
	flush := func() {
		if len(b) >= 32<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	// An interval "+lower…+upper" is about twice as wide as a regret.
	regretWidth := 10
	if r.UnprovenRegrets > 0 {
		regretWidth = 20
	}
	for _, c := range r.Choices {
		b = append(b, "  "...)
		b = append(b, c.Invocation...)
		b = append(b, ": "...)
		b = append(b, c.Alternative...)
		b = append(b, "  "...)
		b = appendNS(b, c.CostNS)
		b = append(b, "  "...)
		b = append(b, c.Origin...)
		b = append(b, ": "...)
		b = strconv.AppendInt(b, c.Multiplicity, 10)
		if r.SMCount <= 0 {
			// The cost model's roofline is a figure of the whole GPU;
			// with the SMs known it reads as a declared cost does, a
			// tile on one SM, so the two compare.
			b = append(b, " tiles × "...)
			b = appendNS(b, c.CostNS/float64(max(c.Multiplicity, 1)))
			b = append(b, " (the whole GPU's)"...)
		} else {
			b = append(b, " tiles × "...)
			b = appendNS(b, c.CostNS*float64(r.SMCount)/float64(max(c.Multiplicity, 1)))
			b = append(b, " a tile and SM / "...)
			b = strconv.AppendInt(b, int64(r.SMCount), 10)
			b = append(b, " SMs"...)
		}
		if c.Tie {
			b = append(b, "  (a tie: another alternative is as good)"...)
		}
		b = append(b, '\n')
		if c.NoSharedMemoryConversions {
			b = append(b, "      (its conversions inside its kernel avoid shared memory: the kernel's budget has no room for their scratch)\n"...)
		}
		// The alternatives whose regrets were not computed take one line:
		// on a large graph they are most of the report.
		unexplained := 0
		for _, rj := range c.Rejected {
			if c.NotExplained && !rj.Removed {
				unexplained++
				continue
			}
			b = append(b, "      "...)
			b = appendPadded(b, rj.Alternative, 14)
			b = append(b, ' ')
			b = appendPadded(b, regretText(rj), regretWidth)
			b = append(b, "  "...)
			b = append(b, rj.Reason...)
			b = append(b, '\n')
		}
		if unexplained > 0 {
			b = append(b, "      not explained: "...)
			first := true
			for _, rj := range c.Rejected {
				if !rj.Removed {
					if !first {
						b = append(b, ", "...)
					}
					b, first = append(b, rj.Alternative...), false
				}
			}
			b = append(b, '\n')
		}
		flush()
	}

	b = append(b, "\nboundaries (the data's class and the mechanism that moves it, cost, origin)\n"...)
	payers := r.payers()
	for _, bd := range r.Boundaries {
		served := !payers[bd.Edge] && len(bd.SharedWith) == 1
		b = append(b, "  "...)
		b = append(b, bd.Edge...)
		b = append(b, ": "...)
		switch {
		case bd.Crossing == "global_round_trip":
			b = append(b, "a kernel boundary through global memory"...)
		case bd.Origin == "measured" && bd.Mechanism != bd.Class:
			// The measurement is of the pair, whatever moved it; the
			// mechanism is the model's.
			b = append(b, bd.Class...)
			b = append(b, " (measured as a whole; the model would move it via "...)
			b = append(b, bd.Mechanism...)
			b = append(b, ')')
		case bd.Mechanism != bd.Class:
			b = append(b, bd.Class...)
			b = append(b, " via "...)
			b = append(b, bd.Mechanism...)
		default:
			b = append(b, bd.Class...)
		}
		b = append(b, ", "...)
		b = appendNS(b, bd.CostNS)
		switch {
		case served:
			b = append(b, ": the conversion of "...)
			b = append(b, bd.SharedWith[0]...)
			b = append(b, ", which pays it"...)
		default:
			b = append(b, ", "...)
			b = append(b, bd.Origin...)
			if bd.PerTileNS > 0 {
				b = append(b, " ("...)
				b = strconv.AppendInt(b, bd.Moves, 10)
				b = append(b, " tiles × "...)
				b = appendNS(b, bd.PerTileNS)
				b = append(b, " a tile and SM"...)
				if r.SMCount > 0 {
					b = append(b, " / "...)
					b = strconv.AppendInt(b, int64(r.SMCount), 10)
					b = append(b, " SMs"...)
				}
				b = append(b, ')')
			}
		}
		b = append(b, "\n      "...)
		b = append(b, bd.Source...)
		b = append(b, " → "...)
		b = append(b, bd.Target...)
		b = append(b, '\n')
		if len(bd.SharedWith) > 0 && !served {
			b = append(b, "      one conversion, paid here, for "...)
			for i, e := range bd.SharedWith {
				if i > 0 {
					b = append(b, ", "...)
				}
				b = append(b, e...)
			}
			b = append(b, " too\n"...)
		}
		if bd.Crossing == "global_round_trip" && bd.Detail != "" {
			b = append(b, "      "...)
			b = append(b, bd.Detail...)
			b = append(b, '\n')
		}
		flush()
	}
	bw.Write(b)
	if len(r.Budgets) > 0 {
		fmt.Fprintf(bw, "\nbudgets\n")
		for _, b := range r.Budgets {
			fmt.Fprintf(bw, "  %s: %.0f of %.0f\n", b.Name, b.Used, b.Capacity)
		}
	}
	return bw.Flush()
}

// payers marks the edges that pay a conversion they share with others
// (Boundary.SharedWith): the first edge of each shared conversion, which
// lists the edges it serves, where each of these names it alone. Its cost,
// not the edges served's, may be 0 (a conversion measured at 0 ns), so
// only the order tells the edge that pays from the edges it serves.
func (r *Result) payers() map[string]bool {
	// Whether an edge came before is asked only of the edges that an
	// edge served names (seen, false until they come): a set of every
	// edge was most of what a large plan's report allocated.
	seen := map[string]bool{}
	for _, bd := range r.Boundaries {
		if len(bd.SharedWith) == 1 {
			seen[bd.SharedWith[0]] = false
		}
	}
	payers := map[string]bool{}
	for _, bd := range r.Boundaries {
		if len(bd.SharedWith) > 0 && !(len(bd.SharedWith) == 1 && seen[bd.SharedWith[0]]) {
			payers[bd.Edge] = true
		}
		if _, named := seen[bd.Edge]; named {
			seen[bd.Edge] = true
		}
	}
	return payers
}

// appendPadded appends s and spaces up to width runes, as fmt's %-*s.
func appendPadded(b []byte, s string, width int) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

func regretText(rj Rejected) string {
	switch {
	case rj.Removed:
		return "removed"
	case rj.Infeasible:
		return "infeasible"
	case rj.RegretNS == nil && rj.RegretLowerNS != nil && *rj.RegretLowerNS > 0:
		// Unproven, and no plan using it found in time.
		return "≥+" + fmtNS(*rj.RegretLowerNS)
	case rj.RegretNS == nil && rj.RegretLowerNS != nil:
		return "unproven"
	case rj.RegretNS == nil:
		return "—"
	case rj.Tie:
		return "tie"
	case !rj.Exact && rj.RegretLowerNS != nil:
		return "+" + fmtNS(*rj.RegretLowerNS) + "…+" + fmtNS(*rj.RegretNS)
	}
	return "+" + fmtNS(*rj.RegretNS)
}

// A WitnessForm is how a Result carries its conversions' witnesses.
type WitnessForm uint8

const (
	// WitnessesInline: every boundary carries its own witness, as Plan
	// returns it. A witness lists every destination executor and slot
	// (about 130 KB of JSON for a 16×16 tile), so a plan whose boundaries
	// convert the same pairs again and again repeats it on each.
	WitnessesInline WitnessForm = iota
	// WitnessesTable: each distinct witness once, in Result.Witnesses, in
	// the order of the boundaries that first use them; a boundary names
	// its own by index (Boundary.WitnessRef).
	WitnessesTable
	// WitnessesNone: no witnesses.
	WitnessesNone
)

// ParseWitnessForm parses the names "inline", "table" and "none".
func ParseWitnessForm(name string) (WitnessForm, error) {
	switch name {
	case "inline":
		return WitnessesInline, nil
	case "table":
		return WitnessesTable, nil
	case "none":
		return WitnessesNone, nil
	}
	return 0, fmt.Errorf("planner: witness form %q: want inline, table or none", name)
}

// WithWitnesses returns r with its witnesses in form: r itself when they
// already are (WitnessesInline on what Plan returns), else a copy whose
// boundaries are new (r is not changed; the rest is shared). Witnesses are
// the same when their JSON is.
func (r *Result) WithWitnesses(form WitnessForm) (*Result, error) {
	if form > WitnessesNone {
		return nil, fmt.Errorf("planner: WithWitnesses: unknown form %d (want WitnessesInline, WitnessesTable or WitnessesNone)", form)
	}
	if r == nil {
		return nil, errors.New("planner: WithWitnesses of a nil Result")
	}
	if form == WitnessesInline && len(r.Witnesses) == 0 {
		return r, nil
	}
	out := *r
	out.Boundaries = slices.Clone(r.Boundaries)
	out.Witnesses = nil
	index := map[*conversion.Witness]int{} // by pointer: most are shared
	byJSON := map[string]int{}
	for i := range out.Boundaries {
		b := &out.Boundaries[i]
		wit := b.Witness
		if b.WitnessRef != nil {
			if ref := *b.WitnessRef; ref >= 0 && ref < len(r.Witnesses) {
				wit = r.Witnesses[ref]
			}
		}
		b.Witness, b.WitnessRef = nil, nil
		switch {
		case wit == nil || form == WitnessesNone:
		case form == WitnessesInline:
			b.Witness = wit
		default:
			k, ok := index[wit]
			if !ok {
				data, err := json.Marshal(wit)
				if err != nil {
					return nil, fmt.Errorf("planner: the witness of %s: %w", b.Edge, err)
				}
				if k, ok = byJSON[string(data)]; !ok {
					k = len(out.Witnesses)
					out.Witnesses = append(out.Witnesses, wit)
					byJSON[string(data)] = k
				}
				index[wit] = k
			}
			b.WitnessRef = &k
		}
	}
	return &out, nil
}

// WriteJSON writes the plan as JSON (docs/plan-format.md), indented.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// classColors colours boundaries by conversion class, cheapest lightest.
var classColors = map[string]string{
	"identity":              "gray60",
	"register_permute":      "darkgreen",
	"warp_shuffle":          "blue",
	"shared_memory":         "darkorange",
	"cluster_shared_memory": "purple",
	"global_memory":         "red",
}

// WriteDOT writes the graph for Graphviz: invocations labelled with their
// chosen alternative and cost, each fused group a cluster (with its budget),
// boundaries coloured by conversion class and labelled with the class, the
// mechanism where it differs, and the cost; kernel boundaries dashed, a
// conversion that serves several edges bold; a legend of the classes drawn.
func (r *Result) WriteDOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if r.Graph == "" {
		bw.WriteString("digraph {\n") // an anonymous graph: "" is no name
	} else {
		fmt.Fprintf(bw, "digraph %s {\n", dotQuote(r.Graph))
	}
	fmt.Fprintf(bw, "  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	status := r.Status.String()
	if r.Status != Optimal && !math.IsInf(r.Gap, 0) && !math.IsNaN(r.Gap) {
		status += fmt.Sprintf(", bound %s, gap %.3g%%", fmtNS(r.BoundNS), 100*r.Gap)
	}
	fmt.Fprintf(bw, "  label=%s;\n", dotQuote(fmt.Sprintf("%s on %s: %s (%s)", cmp.Or(r.Graph, "an unnamed graph"), r.Target, fmtNS(r.ObjectiveNS), status)))
	node := func(indent string, c *PlanChoice) {
		fmt.Fprintf(bw, "%s%s [label=%s];\n", indent, dotQuote(c.Invocation), dotQuote(fmt.Sprintf("%s\n%s\n%s", c.Invocation, c.Alternative, fmtNS(c.CostNS))))
	}
	// Each group's invocations in a cluster, in the order of the groups'
	// first invocations; the others outside.
	budget := map[string]*BudgetUse{}
	for i := range r.Budgets {
		budget[r.Budgets[i].Name] = &r.Budgets[i]
	}
	var groups []string
	members := map[string][]int{}
	for i := range r.Choices {
		g := r.Choices[i].Group
		if g == "" {
			node("  ", &r.Choices[i])
			continue
		}
		if _, ok := members[g]; !ok {
			groups = append(groups, g)
		}
		members[g] = append(members[g], i)
	}
	for gi, g := range groups {
		label := "kernel " + g
		if b := budget[kernelBudgetName(g)]; b != nil {
			label += fmt.Sprintf(": shared memory %s of %s bytes", fmtAmount(b.Used), fmtAmount(b.Capacity))
		}
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s;\n    style=rounded;\n    color=gray50;\n", gi, dotQuote(label))
		for _, i := range members[g] {
			node("    ", &r.Choices[i])
		}
		fmt.Fprintf(bw, "  }\n")
	}
	classes := map[string]bool{}
	shared, crossing := false, false
	payers := r.payers()
	for _, b := range r.Boundaries {
		from, _, _ := strings.Cut(b.From, ".")
		to, _, _ := strings.Cut(b.To, ".")
		color := classColors[b.Class]
		if color == "" {
			color = "black"
		}
		classes[b.Class] = true
		label := ""
		switch {
		case b.Crossing == "global_round_trip":
			label = "kernel boundary"
		case b.Class == "identity":
			// Nothing moves: no label, the colour says it.
		case b.Mechanism != b.Class:
			label = b.Class + " via " + b.Mechanism
		default:
			label = b.Class
		}
		if b.CostNS > 0 {
			label += "\n" + fmtNS(b.CostNS)
		}
		style := "solid"
		if b.Crossing == "global_round_trip" {
			style, crossing = "dashed", true
		}
		attrs := ""
		if len(b.SharedWith) > 0 {
			// One conversion serves several edges: the edge that pays
			// names how many it serves, the others the one that pays.
			shared = true
			attrs = ", penwidth=2.5"
			if !payers[b.Edge] {
				label += "\n(shared, paid on " + b.SharedWith[0] + ")"
			} else {
				label += fmt.Sprintf("\n(shared by %d edges)", len(b.SharedWith)+1)
			}
		}
		if label != "" {
			attrs += ", label=" + dotQuote(label)
		}
		fmt.Fprintf(bw, "  %s -> %s [color=%s, style=%s%s];\n", dotQuote(from), dotQuote(to), color, style, attrs)
	}
	writeLegend(bw, classes, shared, crossing)
	fmt.Fprintf(bw, "}\n")
	return bw.Flush()
}

// classOrder lists the conversion classes cheapest first, as the legend
// shows them.
var classOrder = []string{"identity", "register_permute", "warp_shuffle", "shared_memory", "cluster_shared_memory", "global_memory"}

// writeLegend draws a key of the classes the boundaries use, and of the
// dashed and bold edges where there are some.
func writeLegend(bw *bufio.Writer, classes map[string]bool, shared, crossing bool) {
	if len(classes) == 0 {
		return
	}
	fmt.Fprintf(bw, "  subgraph cluster_legend {\n    label=\"conversion classes\";\n    style=rounded;\n    color=gray80;\n")
	// The key's node is named with a space, which no invocation id has
	// ("legend" is one, and DOT's legend and "legend" are one node).
	fmt.Fprintf(bw, "    \"cklplan legend\" [shape=plaintext, label=<<table border=\"0\" cellspacing=\"2\">")
	for _, c := range classOrder {
		if classes[c] {
			fmt.Fprintf(bw, "<tr><td><font color=\"%s\">━━━</font></td><td align=\"left\">%s</td></tr>", classColors[c], c)
		}
	}
	if crossing {
		fmt.Fprintf(bw, "<tr><td>╍╍╍</td><td align=\"left\">kernel boundary (global round trip)</td></tr>")
	}
	if shared {
		fmt.Fprintf(bw, "<tr><td><b>━━━</b></td><td align=\"left\">bold: one conversion serves several edges</td></tr>")
	}
	fmt.Fprintf(bw, "</table>>];\n  }\n")
}

// dotQuote quotes s as a DOT string whose label shows s: a quote and a
// backslash escaped, a line break as \n, and other control characters
// (which DOT has no escape for) as a space.
func dotQuote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', byte(c))
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0):
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return string(append(b, '"'))
}

// fmtMS writes a duration in milliseconds to three digits, in seconds from
// one second on: "0.42 ms", "404 ms", "1.21 s", "604 s".
func fmtMS(ms float64) string {
	if ms >= 999.5 {
		s := ms / 1000
		return strconv.FormatFloat(s, 'f', max(0, 2-int(math.Floor(math.Log10(max(s, 1))))), 64) + " s"
	}
	return strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
}

// maxViolationsShown bounds the local choice's violations the text report
// lists; the JSON plan has them all.
const maxViolationsShown = 3

// maxNamedExplained is how many of the explained invocations the text
// report names when not all were.
const maxNamedExplained = 10

// violationsText lists the first maxViolationsShown violations and counts
// the rest.
func violationsText(vs []string) string {
	if len(vs) <= maxViolationsShown {
		return strings.Join(vs, "; ")
	}
	return fmt.Sprintf("%s; and %d more (the JSON plan lists them all)", strings.Join(vs[:maxViolationsShown], "; "), len(vs)-maxViolationsShown)
}

// count is n noun, the noun plural but for one: "1 row", "0 columns".
func count[T ~int | ~int64](n T, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun + "s"
}
