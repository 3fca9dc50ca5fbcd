// live.js - the live view (GET /shardlocal/ui), no dependencies: polls
// /shardlocal/tables, then the selected table's (or GSI's) partitions and
// hot keys every second. ?table=T&index=G picks the view (the menu keeps the
// URL in step); a partition is red while it throttled in the last second
// (throttled_last_second), totals beside it; a selected table that
// disappears shows "was deleted" and empty views instead of its last
// numbers, and comes back if it is created again. index.html links this
// file; the build inlines it into the page (api/admin/ui_embed.sh).
"use strict";
var sel=document.getElementById("tsel"),q=new URLSearchParams(location.search);
var want=q.get("table")?{t:q.get("table"),i:q.get("index")||""}:null,seen={},gone=null;
function $(id){return document.getElementById(id)}
function key(w){return w?w.t+(w.i?"/"+w.i:""):""}
function j(u){return fetch(u,{cache:"no-store"}).then(function(r){
 if(r.status==404){var e=new Error("not found");e.nf=true;throw e}return r.json()})}
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return{"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;"}[c]})}
function num(x){return x==null?"":(Math.round(x*10)/10).toLocaleString("en-US")}
function pl(n,w,p){return num(n)+" "+(n==1?w:(p||w+"s"))}
function bar(v,max,cls,mark){var p=max>0?Math.max(0,Math.min(100,100*v/max)):0;
 var m=mark>0&&max>0&&mark<max?'<i style="left:'+(100*mark/max)+'%" title="share '+num(mark)+'/s"></i>':"";
 return '<div class="bar" title="'+num(v)+' / '+num(max)+'"><span class="'+cls+'" style="width:'+p+'%"></span>'+m+'</div> '+num(v)}
function bucket(w,od){if(od)return '<span class="z">on-demand</span>';
 if(!(w.bucket_capacity>0))return '<span class="z">-</span>';
 var lv=w.bucket_level||0,net=(w.share_per_second||0)-(w.consumed_last_second||0),s=num(lv)+' <span class="t">/ '+num(w.bucket_capacity)+'</span> ';
 if(net<-0.05)s+='<span class="dn" title="consuming faster than the share: the bank drains">&#9660; '+num(-net)+'/s'+(lv>0?' <span class="t">empty in '+dur(lv/-net)+'</span>':'')+'</span>';
 else if(lv<w.bucket_capacity-0.05)s+='<span class="up" title="refilling at the unused share">&#9650; '+num(net)+'/s</span>';
 else s+='<span class="t">full</span>';return s}
function dur(s){s=Math.round(s);return s<90?s+" s":Math.round(s/60)+" min"}
function thr(o){if(!o)return '<span class="z">-</span>';var r=o.throttled_last_second||0,t=o.throttled_total||0,c=o.throttled,d=[];
 for(var k in c)if(c[k])d.push(k+" "+c[k]);
 return '<span class="'+(r?"thr":"z")+'">'+r+'</span> <span class="t" title="'+esc(d.join(", "))+'">('+num(t)+')</span>'}
function setUrl(){if(!want)return;var u=new URLSearchParams(location.search);u.set("table",want.t);
 if(want.i)u.set("index",want.i);else u.delete("index");history.replaceState(null,"","?"+u.toString())}
function clear(msg){gone=msg;$("psum").textContent="";document.querySelector("#parts tbody").innerHTML="";$("hk").innerHTML="";
 var s=$("state");s.textContent=msg;s.style.display="block"}
function tables(){return j("/shardlocal/tables").then(function(d){
 var names=[],nt=0,ni=0;d.tables.forEach(function(t){names.push({t:t.table,i:""});nt++;
  (t.indexes||[]).forEach(function(i){names.push({t:t.table,i:i.index});ni++})});
 names.forEach(function(n){seen[key(n)]=true});
 if(!want&&names.length){want=names[0];setUrl()}
 var k=key(want),have=names.some(function(n){return key(n)==k});
 var opts=names.map(function(n){return '<option value="'+esc(key(n))+'">'+esc(key(n))+"</option>"});
 if(want&&!have)opts.unshift('<option value="'+esc(k)+'">'+esc(k)+(seen[k]?" (deleted)":" (not found)")+"</option>");
 var h=opts.join("");if(sel.innerHTML!=h)sel.innerHTML=h;if(want)sel.value=k;
 $("meta").textContent="clock "+new Date(d.now_ms).toISOString()+" \u00b7 "+pl(nt,"table")+", "+pl(ni,"index","indexes");
 return have})}
function missing(){var k=key(want);clear(want.i?(seen[k]?"Index "+want.i+" of table "+want.t+" was deleted.":"Index "+want.i+" of table "+want.t+" does not exist (yet): waiting for it."):
 (seen[k]?"Table "+want.t+" was deleted.":"Table "+want.t+" does not exist (yet): waiting for it."))}
function base(){return "/shardlocal/tables/"+encodeURIComponent(want.t)+(want.i?"/indexes/"+encodeURIComponent(want.i):"")}
function mine(d){return d.table==want.t&&(d.index||"")==want.i}
function parts(){return j(base()+"/partitions").then(function(d){if(!mine(d))return;
 var od=d.billing_mode=="PAY_PER_REQUEST",pr=d.provisioned,w=d.write||{},r=d.read||{};
 $("psum").innerHTML=esc("("+pl(d.partition_count,"partition")+", "+pl(d.item_count||0,"item")+", "+d.billing_mode+
  (pr?" "+pr.write_capacity_units+" WCU / "+pr.read_capacity_units+" RCU":"")+")")+
  ' &middot; throttled in the last second: <span class="'+(w.throttled_last_second?"thr":"z")+'">'+pl(w.throttled_last_second||0,"write")+'</span>, <span class="'+(r.throttled_last_second?"thr":"z")+'">'+pl(r.throttled_last_second||0,"read")+"</span>";
 document.querySelector("#parts tbody").innerHTML=d.partitions.map(function(p){
  var w=p.write||{},r=p.read||{},hot=w.throttled_last_second||r.throttled_last_second;
  return "<tr"+(hot?' class="hot"':"")+"><td>"+p.partition+'</td><td class="l"><code>'+p.hash_start.slice(0,8)+"&hellip;"+p.hash_end.slice(0,8)+"</code></td><td>"+num(p.item_count||0)+"</td><td>"+num(p.size_bytes||0)+
   '</td><td class="l">'+bar(w.consumed_last_second||0,w.ceiling_per_second||0,"w",w.share_per_second)+
   '</td><td class="l">'+bar(r.consumed_last_second||0,r.ceiling_per_second||0,"r",r.share_per_second)+
   '</td><td class="l">'+bucket(w,od)+"</td><td>"+thr(p.write)+"</td><td>"+thr(p.read)+"</td></tr>"}).join("")})}
function hot(){return j(base()+"/hotkeys?n=8").then(function(d){if(!mine(d))return;var out="";
 [["consumed_write","most written (WCU)"],["consumed_read","most read (RCU)"],["throttled_write","most throttled writes"],["throttled_read","most throttled reads"]].forEach(function(k){
  var l=d[k[0]]||[];out+='<table><caption>'+k[1]+'</caption><thead><tr><th class="l">key</th><th class="p" title="partition">#</th><th class="c">count</th></tr></thead><tbody>'+
  (l.length?l.map(function(e){return '<tr><td class="l" title="'+esc(e.key_text)+'">'+esc(e.key_text)+"</td><td>"+(e.partition==null?"":e.partition)+"</td><td>"+num(e.count)+"</td></tr>"}).join(""):'<tr><td class="l z" colspan="3">none</td></tr>')+"</tbody></table>"});
 $("hk").innerHTML=out})}
function refresh(){if(!want)return Promise.resolve();var w0=key(want);
 return Promise.all([parts(),hot()]).then(function(){if(key(want)==w0&&gone){gone=null;$("state").style.display="none"}})
 .catch(function(e){if(e.nf&&key(want)==w0)missing();else throw e})}
function tick(){tables().then(function(have){if(!want)return clear("No tables yet: waiting for one.");if(!have)return missing();return refresh()})
 .catch(function(e){$("meta").textContent="error: "+e}).then(function(){setTimeout(tick,1000)})}
sel.onchange=function(){var v=sel.value,p=v.indexOf("/");want=p<0?{t:v,i:""}:{t:v.slice(0,p),i:v.slice(p+1)};setUrl();
 tables().then(function(have){if(have)return refresh();missing()})};
tick();
