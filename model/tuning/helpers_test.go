package tuning

import "github.com/tablefull/tablefull/model"

// tcpRate is a rate of new entries counted from TCP opens.
func tcpRate(ps float64) model.EntryRates {
	r := model.EntryRates{Basis: model.BasisTCPOpens, Total: ps}
	r.PerClass[model.ClassTCPDone] = ps
	return r
}
