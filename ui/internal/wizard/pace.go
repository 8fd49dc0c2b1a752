package wizard

import "time"

// paces are the values a wizard's pace key cycles through.
var paces = [...]time.Duration{0, 250 * time.Millisecond, time.Second, 3 * time.Second}

// Pace is the sandbox pace a wizard shows and sets: the one last chosen
// with its pace key, until then the sandbox's own (read at each render).
type Pace struct {
	d   time.Duration
	set bool
}

// Current is the pace shown: the one chosen, else sandbox's (nil: no
// sandbox).
func (p *Pace) Current(sandbox func() time.Duration) time.Duration {
	if p.set || sandbox == nil {
		return p.d
	}
	return sandbox()
}

// Next chooses the pace after the current one, wrapping, and returns it.
func (p *Pace) Next(sandbox func() time.Duration) time.Duration {
	i, cur := 0, p.Current(sandbox)
	for j, d := range paces {
		if d <= cur {
			i = j
		}
	}
	p.d, p.set = paces[(i+1)%len(paces)], true
	return p.d
}
